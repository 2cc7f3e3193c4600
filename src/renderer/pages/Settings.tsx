// Environments (the built-in emulator and custom platforms) and where secrets are kept.
// Secrets are write-only: the app answers only whether one is set and a short hint, and the
// form forgets what was typed as soon as it is saved.
import { useEffect, useState, type FormEvent } from 'react';
import { bondStorageWords, type BondStorage } from '../../core/ble/security-manager/bond-summary';
import type { AppStatus, EnvironmentView } from '../../core/app/contract';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { AuditPoolSettings } from './AuditPoolSettings';
import { CopyableId } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { Panel } from '../components/Panel';
import { TableHead } from '../components/TableHead';
import { TextField, type TextFieldProps } from '../components/TextField';
import { useApi } from '../lib/api-context';
import { maskedSecret, type SecretView } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useFields } from '../lib/use-fields';

interface SettingsProps {
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
  const [notice, setNotice] = useState<string>();
  const select = useAction();

  async function use(env: EnvironmentView) {
    await select.run(async () => {
      await api.settings.selectEnvironment({ id: env.id });
      onChanged();
    });
  }

  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
      </header>

      <KeychainStatus status={status} />

      <AuditPoolSettings />

      <Panel
        title="Environments"
        actions={
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
        }
      >
        {notice && (
          <p className="notice" role="status" data-testid="settings-notice">
            {notice}
          </p>
        )}
        <ErrorNotice error={select.error} />
        <table className="grid" data-testid="environments-table">
          <TableHead
            columns={['Name', 'Base URL', 'Channel ID', 'Access token', 'Channel secret']}
            rowActions
          />
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
      </Panel>

      {pendingDelete && (
        <ConfirmDialog
          title="Delete environment?"
          confirmLabel="Delete environment"
          onConfirm={async () => {
            await api.settings.deleteEnvironment({ id: pendingDelete.id });
            setPendingDelete(undefined);
            setNotice(`Deleted environment ${pendingDelete.name}`);
            onChanged();
          }}
          onCancel={() => setPendingDelete(undefined)}
        >
          <p>
            <strong>{pendingDelete.name}</strong> and its stored token and secret will be removed
            from this app. Nothing changes on the platform.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/**
 * Which key the station's bonds are kept under (the OS keychain's, DEVICEBENCH_BOND_KEY_FILE's,
 * or none: this session only), as the BLE process that holds them says it.
 */
function BondKey() {
  const api = useApi();
  const [storage, setStorage] = useState<BondStorage>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let current = true;
    api.ble.listBonds({}).then(
      (answer) => current && setStorage(answer.storage),
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [api]);
  if (failed) return <p className="muted">Where the bonds are kept could not be read.</p>;
  if (!storage) return null;
  const words = bondStorageWords(storage);
  return (
    <p className={storage.kind === 'encrypted' ? 'muted' : 'warning-box'} data-testid="bond-key">
      {words.charAt(0).toUpperCase() + words.slice(1)}.
    </p>
  );
}

function KeychainStatus({ status }: { status: AppStatus | undefined }) {
  return (
    <Panel title="Secret storage" testId="keychain-status">
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
      <BondKey />
      {status && (
        <p className="muted">
          Data directory <code className="mono">{status.dataDir}</code> · version {status.version}
        </p>
      )}
    </Panel>
  );
}

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
  const save = useAction();
  const fields = useFields(
    {
      name: environment?.name ?? '',
      baseUrl: environment?.baseUrl ?? 'https://',
      channelId: environment?.channelId ?? '',
      channelAccessToken: '',
      channelSecret: '',
    },
    save.error,
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { name, baseUrl, channelId, channelAccessToken, channelSecret } = fields.values;
    await save.run(async () => {
      const saved = await api.settings.saveEnvironment({
        id: environment?.id,
        name,
        baseUrl,
        channelId,
        channelAccessToken: channelAccessToken.trim() || undefined,
        channelSecret: channelSecret.trim() || undefined,
      });
      fields.set('channelAccessToken', '');
      fields.set('channelSecret', '');
      onSaved(saved);
    });
  }

  return (
    <form
      className="stacked-form"
      onSubmit={submit}
      aria-label={environment ? `Edit ${environment.name}` : 'Add environment'}
      data-testid="environment-form"
    >
      <h3>{environment ? `Edit ${environment.name}` : 'Add environment'}</h3>
      <TextField label="Name" {...fields.bind('name')} autoFocus />
      <TextField label="Base URL" {...fields.bind('baseUrl')} mono />
      <TextField label="Channel ID" {...fields.bind('channelId')} mono inputMode="numeric" />
      <SecretField
        label="Channel access token"
        {...fields.bind('channelAccessToken')}
        stored={environment?.channelAccessToken}
      />
      <SecretField
        label="Channel secret"
        {...fields.bind('channelSecret')}
        stored={environment?.channelSecret}
      />
      <ErrorNotice error={save.error} shownFields={fields.names} testId="environment-error" />
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save environment'}
        </button>
      </div>
    </form>
  );
}

/** A write-only secret: blank keeps the stored one, which is shown only as its hint. */
function SecretField({ stored, ...field }: TextFieldProps & { stored: SecretView | undefined }) {
  return (
    <TextField
      type="password"
      autoComplete="new-password"
      {...field}
      mono
      placeholder={stored?.set ? 'leave blank to keep' : ''}
      hint={
        stored?.set ? `Stored: ${maskedSecret(stored)}. Leave blank to keep it.` : 'Not set yet.'
      }
    />
  );
}
