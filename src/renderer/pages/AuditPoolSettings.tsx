// Settings → Audit and PSDI pool: this machine's log (SQLite) or a line's shared PostgreSQL,
// the station's name, and the one-time copy of local records to the shared log. The password
// is write-only like every secret: the app only says whether one is stored.
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { Panel } from '../components/Panel';
import { TextField } from '../components/TextField';
import { useApi } from '../lib/api-context';
import { useAction } from '../lib/use-action';
import { useFields } from '../lib/use-fields';
import { useLoad } from '../lib/use-load';
import { LoadFailure } from '../components/LoadFailure';

export function AuditPoolSettings() {
  const settings = useLoad((api) => api.line.getSettings({}), []);
  const view = settings.value;
  return (
    <Panel title="Audit and PSDI pool" testId="audit-pool">
      {settings.error !== undefined && (
        <LoadFailure error={settings.error} onRetry={settings.reload} />
      )}
      {!view ? (
        <p className="note" role="status">
          Loading…
        </p>
      ) : (
        <>
          <p data-testid="audit-pool-active">
            {view.active.engine === 'postgres' ? 'Shared PostgreSQL' : 'This machine'}:{' '}
            <code className="mono">{view.active.location}</code> · station{' '}
            <strong>{view.active.station}</strong>{' '}
            {view.active.available ? (
              <span className="badge good">connected</span>
            ) : (
              <span className="badge bad">unreachable</span>
            )}
          </p>
          {view.active.error && <p className="warning-box">{view.active.error}</p>}
          {(view.active.fromEnvironment.url || view.active.fromEnvironment.station) && (
            <p className="muted">
              Set by the environment ({' '}
              {[
                view.active.fromEnvironment.url && 'DEVICEBENCH_AUDIT_URL',
                view.active.fromEnvironment.station && 'DEVICEBENCH_STATION',
              ]
                .filter(Boolean)
                .join(', ')}
              ), which wins over what is saved here.
            </p>
          )}
          <AuditPoolForm
            key={`${view.mode}-${view.url ?? ''}-${view.station ?? ''}`}
            initial={view}
            onSaved={settings.reload}
          />
          {view.active.engine === 'postgres' && <CopyLocal />}
        </>
      )}
    </Panel>
  );
}

function AuditPoolForm({
  initial,
  onSaved,
}: {
  initial: {
    mode: 'local' | 'shared';
    url?: string;
    passwordSet: boolean;
    station?: string;
    defaultStation: string;
  };
  onSaved: () => void;
}) {
  const api = useApi();
  const save = useAction();
  const [mode, setMode] = useState(initial.mode);
  const fields = useFields(
    { url: initial.url ?? 'postgres://', password: '', station: initial.station ?? '' },
    save.error,
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    await save.run(async () => {
      await api.line.saveSettings({
        mode,
        url: mode === 'shared' ? fields.values.url : undefined,
        password: fields.values.password || undefined,
        station: fields.values.station,
      });
      fields.set('password', '');
      onSaved();
    });
  }

  return (
    <form className="stacked-form" onSubmit={submit} aria-label="Audit and PSDI pool">
      <fieldset>
        <legend>Where the audit log and PSDI pool live</legend>
        <label>
          <input
            type="radio"
            name="audit-mode"
            checked={mode === 'local'}
            onChange={() => setMode('local')}
          />{' '}
          This machine (one bench)
        </label>
        <label>
          <input
            type="radio"
            name="audit-mode"
            checked={mode === 'shared'}
            onChange={() => setMode('shared')}
          />{' '}
          A shared PostgreSQL (a production line)
        </label>
      </fieldset>
      {mode === 'shared' && (
        <>
          <TextField label="Connection URL" {...fields.bind('url')} mono />
          <TextField
            label="Password"
            type="password"
            autoComplete="new-password"
            {...fields.bind('password')}
            mono
            placeholder={initial.passwordSet ? 'leave blank to keep' : ''}
            hint={
              initial.passwordSet
                ? 'Stored in the keychain. Leave blank to keep it.'
                : 'Kept in the keychain, never in a file. Leave blank if the server needs none.'
            }
          />
        </>
      )}
      <TextField
        label="Station name"
        {...fields.bind('station')}
        placeholder={initial.defaultStation}
        maxLength={100}
        hint={`Recorded on every record this station writes; blank uses the host name (${initial.defaultStation}).`}
      />
      <p className="muted">
        Switching keeps this machine’s records where they are and readable when you switch back; on
        a shared log, “Copy local records” moves them over once.
      </p>
      <ErrorNotice error={save.error} shownFields={fields.names} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          {save.busy ? 'Connecting…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function CopyLocal() {
  const api = useApi();
  const copy = useAction<{ copied: number; alreadyCopied: number; refused: unknown[] }>();
  return (
    <div className="button-row">
      <button
        type="button"
        disabled={copy.busy}
        onClick={() => void copy.run(() => api.line.copyLocalToShared({}))}
      >
        {copy.busy ? 'Copying…' : 'Copy local records to the shared log'}
      </button>
      {copy.value && (
        <span className="notice" role="status" data-testid="copy-result">
          {copy.value.copied} copied, {copy.value.alreadyCopied} already there
          {copy.value.refused.length
            ? `, ${copy.value.refused.length} refused (PSDI held here)`
            : ''}
        </span>
      )}
      <ErrorNotice error={copy.error} />
    </div>
  );
}
