// Chat control: acquire (with `expired` and `ttl`) and release, with the bot-user-ID header
// named as the user configures it, and who holds each chat now.
import { useState } from 'react';
import {
  DEFAULT_BOT_USER_ID_HEADER,
  TTL_DEFAULT_SECONDS,
  type ModuleState,
} from '../../../core/platform/modules/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { formatTime } from '../../lib/format';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

export function ChatControl({
  state,
  moduleChannelId,
  botId,
  onChange,
}: {
  state: ModuleState | undefined;
  moduleChannelId: string;
  botId: string;
  onChange: () => void;
}) {
  const api = useApi();
  const action = useAction<string>();
  const [expired, setExpired] = useState(true);
  const bot = state?.bots.find((b) => b.botId === botId);
  const fields = useFields(
    {
      chatId: '',
      botId: '',
      ttl: String(TTL_DEFAULT_SECONDS),
      botUserIdHeader: state?.botUserIdHeader ?? DEFAULT_BOT_USER_ID_HEADER,
    },
    action.error,
  );
  const target = {
    moduleChannelId: moduleChannelId || undefined,
    chatId: fields.values.chatId || bot?.chats[0] || '',
    botId: fields.values.botId || botId,
    botUserIdHeader: fields.values.botUserIdHeader || undefined,
  };
  const run = (call: () => Promise<unknown>, done: string) =>
    void action.run(async () => {
      await call();
      onChange();
      return done;
    });

  return (
    <Panel title="Chat control">
      <div className="inline-form">
        <TextField
          label="Chat ID"
          {...fields.bind('chatId')}
          placeholder={bot?.chats[0] ?? 'U…, C… or R…'}
          suggestions={bot?.chats.map((c) => ({ value: c, label: c }))}
          mono
          className="grow"
        />
        <TextField
          label="Bot user ID"
          {...fields.bind('botId')}
          placeholder={botId}
          mono
          className="grow"
        />
        <TextField
          label="Bot user ID header"
          {...fields.bind('botUserIdHeader')}
          hint="Not given by the platform: configurable"
        />
      </div>
      <div className="inline-form">
        <div className="field checkbox">
          <input
            id="modules-expired"
            type="checkbox"
            checked={expired}
            onChange={(e) => setExpired(e.target.checked)}
          />
          <label htmlFor="modules-expired">Time limit (expired)</label>
        </div>
        <TextField
          label="ttl (seconds)"
          {...fields.bind('ttl')}
          inputMode="numeric"
          disabled={!expired}
          className="number"
        />
        <button
          type="button"
          className="primary"
          disabled={action.busy}
          onClick={() =>
            run(
              () =>
                api.modules.acquire({
                  ...target,
                  expired,
                  ...(expired && fields.values.ttl && { ttl: Number(fields.values.ttl) }),
                }),
              'Control acquired.',
            )
          }
        >
          Acquire control
        </button>
        <button
          type="button"
          disabled={action.busy}
          onClick={() => run(() => api.modules.release(target), 'Control released.')}
        >
          Release control
        </button>
      </div>
      <ErrorNotice error={action.error} shownFields={fields.names} testId="control-error" />
      {action.value && !action.error && (
        <p role="status" data-testid="control-result">
          {action.value}
        </p>
      )}
      {state && (
        <table className="grid" aria-label="Chat control">
          <TableHead columns={['Chat', 'Account', 'Active module channel', 'Time limit']} />
          <tbody>
            {state.controls.length === 0 ? (
              <tr>
                <td colSpan={4} className="muted">
                  Every chat is with its primary channel.
                </td>
              </tr>
            ) : (
              state.controls.map((c) => (
                <tr key={`${c.botId}:${c.chatId}`}>
                  <td className="mono">{c.chatId}</td>
                  <td>{state.bots.find((b) => b.botId === c.botId)?.displayName ?? c.botId}</td>
                  <td className="mono">{c.moduleChannelId}</td>
                  <td>{c.expireAt === null ? 'none' : formatTime(c.expireAt)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
