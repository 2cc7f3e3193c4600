// Environments (the built-in emulator and custom platforms) and where secrets are kept.
// Secrets are write-only: the app answers only whether one is set and a short hint, and the
// form forgets what was typed as soon as it is saved.
import { useState, type FormEvent } from 'react';
import type { AppStatus, EnvironmentView } from '../../core/app/contract';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyableId } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/TextField';
import { useApi } from '../lib/api-context';
import { messagesFor } from '../lib/errors';
import { maskedSecret } from '../lib/format';

export interface SettingsProps {
  activeId: string;
  environments: readonly EnvironmentView[];
  status: AppStatus | undefined;
  onChanged: () => void;
}

export function Settings({ activeId, environments, status, onChanged }: SettingsProps) {
  const api = useApi();
  // 'new' for the add form, an environment to edit it, undefined when no form is open.
  const [editing, setEditing] = useState<EnvironmentView | 'new'>();
  const [pendingDelete, setPendingDelete] = useState<EnvironmentView>();
  const [rowError, setRowError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();

  async function use(env: EnvironmentView) {
    setRowError(undefined);
    try {
      await api.settings.selectEnvironment({ id: env.id });
      onChanged();
    } catch (error) {
      setRowError(error);
    }
  }

  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
      </header>

      <KeychainStatus status={status} />

      <section className="panel" aria-labelledby="env-title">
        <header className="panel-header">
          <h2 id="env-title">Environments</h2>
          <button
            type="button"
            className="primary"
            onClick={() => {
              setNotice(undefined);
              setEditing('new');
            }}
          >
            Add environment
          </button>
        </header>
        {notice && (
          <p className="notice" role="status" data-testid="settings-notice">
            {notice}
          </p>
        )}
        <ErrorNotice error={rowError} />
        <table className="grid" data-testid="environments-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Base URL</th>
              <th scope="col">Channel ID</th>
              <th scope="col">Access token</th>
              <th scope="col">Channel secret</th>
              <th scope="col">
                <span className="offscreen">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {environments.map((env) => (
              <tr
                key={env.id}
                data-testid="environment-row"
                data-environment-id={env.id}
                className={env.id === activeId ? 'selected' : undefined}
              >
                <td>
                  {env.name} {env.kind === 'emulator' && <span className="badge">built-in</span>}{' '}
                  {env.id === activeId && <span className="badge good">active</span>}
                </td>
                <td className="mono">{env.baseUrl}</td>
                <td>
                  {env.channelId ? <CopyableId value={env.channelId} label="channel ID" /> : '—'}
                </td>
                <td className="mono" data-testid="token-mask">
                  {maskedSecret(env.channelAccessToken)}
                </td>
                <td className="mono" data-testid="secret-mask">
                  {maskedSecret(env.channelSecret)}
                </td>
                <td className="row-actions">
                  <button
                    type="button"
                    disabled={env.id === activeId}
                    aria-label={`Use ${env.name}`}
                    onClick={() => void use(env)}
                  >
                    Use
                  </button>
                  {env.kind === 'custom' && (
                    <>
                      <button
                        type="button"
                        aria-label={`Edit ${env.name}`}
                        onClick={() => {
                          setNotice(undefined);
                          setEditing(env);
                        }}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Delete ${env.name}`}
                        onClick={() => setPendingDelete(env)}
                      >
                        Delete…
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {editing && (
          <EnvironmentForm
            key={editing === 'new' ? 'new' : editing.id}
            environment={editing === 'new' ? undefined : editing}
            onCancel={() => setEditing(undefined)}
            onSaved={(saved) => {
              setEditing(undefined);
              setNotice(`Saved environment ${saved.name}`);
              onChanged();
            }}
          />
        )}
      </section>

      {pendingDelete && (
        <DeleteEnvironmentDialog
          environment={pendingDelete}
          onClose={(deleted) => {
            setPendingDelete(undefined);
            if (!deleted) return;
            setNotice(`Deleted environment ${pendingDelete.name}`);
            onChanged();
          }}
        />
      )}
    </div>
  );
}

function KeychainStatus({ status }: { status: AppStatus | undefined }) {
  return (
    <section className="panel" aria-labelledby="keychain-title" data-testid="keychain-status">
      <header className="panel-header">
        <h2 id="keychain-title">Secret storage</h2>
      </header>
      {!status ? (
        <p className="note" role="status">
          Loading…
        </p>
      ) : status.keychain.kind === 'keychain' ? (
        <p>Access tokens and channel secrets are stored in the operating system’s keychain.</p>
      ) : (
        <div className="warning-box">
          <p>
            <strong>No OS keychain is available.</strong> Secrets you enter are kept in memory only,
            until the app closes; you will need to enter them again next time.
          </p>
          {status.keychain.reason && (
            <p className="muted">
              Reason: <span className="mono">{status.keychain.reason}</span>
            </p>
          )}
        </div>
      )}
      {status && (
        <p className="muted">
          Data directory <code className="mono">{status.dataDir}</code> · version {status.version}
        </p>
      )}
    </section>
  );
}

const FORM_FIELDS = ['name', 'baseUrl', 'channelId', 'channelAccessToken', 'channelSecret'];

function EnvironmentForm({
  environment,
  onCancel,
  onSaved,
}: {
  environment: EnvironmentView | undefined;
  onCancel: () => void;
  onSaved: (saved: EnvironmentView) => void;
}) {
  const api = useApi();
  const [name, setName] = useState(environment?.name ?? '');
  const [baseUrl, setBaseUrl] = useState(environment?.baseUrl ?? 'https://');
  const [channelId, setChannelId] = useState(environment?.channelId ?? '');
  const [token, setToken] = useState('');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const saved = await api.settings.saveEnvironment({
        id: environment?.id,
        name,
        baseUrl,
        channelId,
        channelAccessToken: token.trim() || undefined,
        channelSecret: secret.trim() || undefined,
      });
      setToken('');
      setSecret('');
      onSaved(saved);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const keepHint = (view: EnvironmentView['channelAccessToken'] | undefined) =>
    view?.set ? `Stored: ${maskedSecret(view)}. Leave blank to keep it.` : 'Not set yet.';

  return (
    <form
      className="stacked-form"
      onSubmit={submit}
      aria-label={environment ? `Edit ${environment.name}` : 'Add environment'}
      data-testid="environment-form"
    >
      <h3>{environment ? `Edit ${environment.name}` : 'Add environment'}</h3>
      <TextField
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        messages={messagesFor(error, 'name')}
        autoFocus
      />
      <TextField
        label="Base URL"
        name="baseUrl"
        value={baseUrl}
        onChange={setBaseUrl}
        mono
        messages={messagesFor(error, 'baseUrl')}
      />
      <TextField
        label="Channel ID"
        name="channelId"
        value={channelId}
        onChange={setChannelId}
        mono
        inputMode="numeric"
        messages={messagesFor(error, 'channelId')}
      />
      <TextField
        label="Channel access token"
        name="channelAccessToken"
        type="password"
        autoComplete="new-password"
        value={token}
        onChange={setToken}
        mono
        placeholder={environment?.channelAccessToken.set ? 'leave blank to keep' : ''}
        hint={keepHint(environment?.channelAccessToken)}
        messages={messagesFor(error, 'channelAccessToken')}
      />
      <TextField
        label="Channel secret"
        name="channelSecret"
        type="password"
        autoComplete="new-password"
        value={secret}
        onChange={setSecret}
        mono
        placeholder={environment?.channelSecret.set ? 'leave blank to keep' : ''}
        hint={keepHint(environment?.channelSecret)}
        messages={messagesFor(error, 'channelSecret')}
      />
      <ErrorNotice error={error} shownFields={FORM_FIELDS} testId="environment-error" />
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save environment'}
        </button>
      </div>
    </form>
  );
}

function DeleteEnvironmentDialog({
  environment,
  onClose,
}: {
  environment: EnvironmentView;
  onClose: (deleted: boolean) => void;
}) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await api.settings.deleteEnvironment({ id: environment.id });
      onClose(true);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title="Delete environment?"
      confirmLabel="Delete environment"
      busy={busy}
      error={<ErrorNotice error={error} />}
      onConfirm={() => void confirm()}
      onCancel={() => onClose(false)}
    >
      <p>
        <strong>{environment.name}</strong> and its stored token and secret will be removed from
        this app. Nothing changes on the platform.
      </p>
    </ConfirmDialog>
  );
}
