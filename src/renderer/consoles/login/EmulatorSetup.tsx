// The emulator's side of login that no platform API sets: the channel's app type and linked
// official account, and a user's picture, status message, email and friendship.
import { useState, type FormEvent } from 'react';
import { APP_TYPE_LABELS, APP_TYPES, type AppType } from '../../../core/platform/login/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { LoadFailure } from '../../components/LoadFailure';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { useLoad } from '../../lib/use-load';

export function EmulatorSetup() {
  const state = useLoad((api) => api.login.emulatorState({}), []);
  if (!state.value)
    return (
      <Panel title="Emulator login data">
        {state.error !== undefined ? (
          <LoadFailure error={state.error} onRetry={state.reload} />
        ) : (
          <p className="note">Loading…</p>
        )}
      </Panel>
    );
  const { channel, users } = state.value;
  return (
    <Panel title="Emulator login data" testId="login-emulator-setup">
      <ChannelForm
        key={`${channel.appType}-${channel.linkedAccount}`}
        appType={channel.appType}
        linkedAccount={channel.linkedAccount ?? ''}
        onSaved={state.reload}
      />
      <UserForm users={users} onSaved={state.reload} />
    </Panel>
  );
}

function ChannelForm(props: { appType: AppType; linkedAccount: string; onSaved: () => void }) {
  const api = useApi();
  const action = useAction();
  const [appType, setAppType] = useState(props.appType);
  const fields = useFields({ linkedAccount: props.linkedAccount }, action.error);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (
      await action.run(() =>
        api.login.saveChannel({ appType, linkedAccount: fields.values.linkedAccount }),
      )
    )
      props.onSaved();
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Channel login settings">
      <div className="field">
        <label htmlFor="login-app-type">App type</label>
        <select
          id="login-app-type"
          value={appType}
          onChange={(e) => setAppType(e.target.value as AppType)}
        >
          {APP_TYPES.map((t) => (
            <option key={t} value={t}>
              {APP_TYPE_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      <TextField
        label="Linked official account"
        {...fields.bind('linkedAccount')}
        hint="Empty: none (friendship answers 403)"
      />
      <button type="submit" disabled={action.busy}>
        Save channel
      </button>
      <ErrorNotice error={action.error} shownFields={fields.names} />
    </form>
  );
}

interface UserExtras {
  userId: string;
  displayName: string;
  pictureUrl: string | null;
  statusMessage: string | null;
  email: string | null;
}

function UserForm({ users, onSaved }: { users: UserExtras[]; onSaved: () => void }) {
  const [userId, setUserId] = useState(users.at(-1)?.userId ?? '');
  const user = users.find((u) => u.userId === userId) ?? users.at(-1);
  if (!user) return <p className="note">No users yet: minting a code adds one.</p>;
  return (
    <>
      <div className="field">
        <label htmlFor="login-user">User</label>
        <select id="login-user" value={user.userId} onChange={(e) => setUserId(e.target.value)}>
          {users.map((u) => (
            <option key={u.userId} value={u.userId}>
              {u.displayName} ({u.userId.slice(0, 9)}…)
            </option>
          ))}
        </select>
      </div>
      <UserDetails key={user.userId} user={user} onSaved={onSaved} />
    </>
  );
}

function UserDetails({ user, onSaved }: { user: UserExtras; onSaved: () => void }) {
  const api = useApi();
  const action = useAction();
  const fields = useFields(
    {
      pictureUrl: user.pictureUrl ?? '',
      statusMessage: user.statusMessage ?? '',
      email: user.email ?? '',
    },
    action.error,
  );
  const [friend, setFriend] = useState(false);
  const [blocked, setBlocked] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const ok = await action.run(async () => {
      await api.login.saveProfile({ userId: user.userId, ...fields.values });
      await api.login.setFriendship({ userId: user.userId, friend, blocked });
    });
    if (ok) onSaved();
  }
  return (
    <form className="stacked-form" onSubmit={submit} aria-label="User profile data">
      <TextField label="Picture URL" {...fields.bind('pictureUrl')} mono hint="https:// or empty" />
      <TextField label="Status message" {...fields.bind('statusMessage')} />
      <TextField label="Email" {...fields.bind('email')} />
      <label>
        <input type="checkbox" checked={friend} onChange={(e) => setFriend(e.target.checked)} />{' '}
        Friend of the linked account
      </label>
      <label>
        <input type="checkbox" checked={blocked} onChange={(e) => setBlocked(e.target.checked)} />{' '}
        Blocked it
      </label>
      <button type="submit" disabled={action.busy}>
        Save user
      </button>
      <ErrorNotice error={action.error} shownFields={fields.names} />
    </form>
  );
}
