// The emulator's side of module channels: module channels, official accounts with their friends,
// and account suspension, return and deletion (admin actions of
// docs/platform-api.md#modules-states).
import type { FormEvent } from 'react';
import type { ModuleState } from '../../../core/platform/modules/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

export function EmulatorSetup({ state, onChange }: { state: ModuleState; onChange: () => void }) {
  const api = useApi();
  const action = useAction();
  const fields = useFields({ name: 'My module', displayName: 'Bench Cafe' }, action.error);
  const act = (call: () => Promise<unknown>) =>
    void action.run(async () => {
      await call();
      onChange();
    });
  const submit = (call: () => Promise<unknown>) => (event: FormEvent) => {
    event.preventDefault();
    act(call);
  };

  return (
    <Panel title="Emulator: module channels and accounts">
      <div className="columns">
        <form
          className="inline-form"
          aria-label="Create module channel"
          onSubmit={submit(() => api.modules.createModuleChannel({ name: fields.values.name }))}
        >
          <TextField label="Module channel name" {...fields.bind('name')} />
          <button type="submit" disabled={action.busy}>
            Create module channel
          </button>
        </form>
        <form
          className="inline-form"
          aria-label="Create account"
          onSubmit={submit(() =>
            api.modules.createAccount({ displayName: fields.values.displayName }),
          )}
        >
          <TextField label="Account name" {...fields.bind('displayName')} />
          <button type="submit" disabled={action.busy}>
            Create account
          </button>
        </form>
      </div>
      <ErrorNotice error={action.error} shownFields={fields.names} />
      {state.bots.length > 0 && (
        <div className="table-scroll">
          <table className="grid" aria-label="Accounts">
            <TableHead
              columns={['Account', 'Bot user ID', 'Status', 'Friends and groups']}
              rowActions
            />
            <tbody>
              {state.bots.map((bot) => (
                <tr key={bot.botId} data-testid="module-account">
                  <td>
                    {bot.displayName} <span className="muted">{bot.basicId}</span>
                  </td>
                  <td>
                    <CopyableId value={bot.botId} label={`bot user ID of ${bot.displayName}`} />
                  </td>
                  <td>{bot.status}</td>
                  <td className="mono">
                    {bot.chats.length ? bot.chats.join(', ') : <em>none</em>}
                  </td>
                  <td className="row-actions">
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() =>
                        act(async () => {
                          const user = await api.emulator.addUser({
                            displayName: `Friend of ${bot.displayName}`,
                          });
                          await api.modules.addChat({ botId: bot.botId, chatId: user.userId });
                        })
                      }
                    >
                      Add a friend
                    </button>
                    {bot.status === 'active' && (
                      <button
                        type="button"
                        disabled={action.busy}
                        onClick={() =>
                          act(() =>
                            api.modules.accountAction({ botId: bot.botId, action: 'suspend' }),
                          )
                        }
                      >
                        Suspend
                      </button>
                    )}
                    {bot.status === 'suspended' && (
                      <button
                        type="button"
                        disabled={action.busy}
                        onClick={() =>
                          act(() =>
                            api.modules.accountAction({ botId: bot.botId, action: 'resume' }),
                          )
                        }
                      >
                        Resume
                      </button>
                    )}
                    {bot.status !== 'deleted' && (
                      <button
                        type="button"
                        className="danger"
                        disabled={action.busy}
                        onClick={() =>
                          act(() =>
                            api.modules.accountAction({ botId: bot.botId, action: 'delete' }),
                          )
                        }
                      >
                        Delete account
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="note">
        A deleted account&apos;s modules are detached three months later on the emulator clock, with
        a <code>bot_deleted</code> event. Suspension sends <code>botSuspended</code> to each
        attached module.
      </p>
    </Panel>
  );
}
