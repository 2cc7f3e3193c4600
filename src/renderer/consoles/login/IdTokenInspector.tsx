// Decodes an ID token and checks it locally with the active channel's secret: signature,
// issuer, expiry, audience, nonce and subject, in the server's order and with its words.
import { useEffect, type FormEvent } from 'react';
import type { IdTokenInspection, LoginContext } from '../../../core/app/contracts/login';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

const CHECK_LABELS = {
  signature: 'Signature (HS256, channel secret)',
  issuer: 'Issuer (iss)',
  expiry: 'Expiry (exp)',
  audience: 'Audience (aud)',
  nonce: 'Nonce',
  subject: 'Subject (sub)',
} as const;

export function IdTokenInspector({
  context,
  idToken,
}: {
  context: LoginContext;
  idToken?: string;
}) {
  const api = useApi();
  const action = useAction<IdTokenInspection>();
  const fields = useFields(
    { idToken: '', issuer: '', clientId: '', nonce: '', userId: '' },
    action.error,
  );
  const { set } = fields;

  // A token the guided flow just received lands here, ready to inspect.
  useEffect(() => {
    if (idToken) set('idToken', idToken);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when a new token arrives
  }, [idToken]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    await action.run(() => api.login.inspectIdToken(fields.values));
  }

  const report = action.value;
  return (
    <Panel title="ID token inspector" testId="id-token-inspector">
      <form className="stacked-form" onSubmit={submit} aria-label="Inspect ID token">
        <TextField
          label="ID token"
          {...fields.bind('idToken')}
          mono
          type="password"
          autoComplete="off"
        />
        <div className="columns">
          <TextField
            label="Expected issuer"
            {...fields.bind('issuer')}
            mono
            placeholder={context.baseUrl}
          />
          <TextField
            label="Expected aud"
            {...fields.bind('clientId')}
            mono
            placeholder={context.channelId}
          />
          <TextField
            label="Expected nonce"
            {...fields.bind('nonce')}
            mono
            hint="Empty: not checked"
          />
          <TextField
            label="Expected sub"
            {...fields.bind('userId')}
            mono
            hint="Empty: not checked"
          />
        </div>
        <div className="button-row">
          <button type="submit" disabled={action.busy}>
            Inspect
          </button>
          {!context.hasChannelSecret && (
            <span className="warn">No channel secret stored: the signature cannot be checked.</span>
          )}
        </div>
      </form>
      <ErrorNotice error={action.error} shownFields={fields.names} />
      {report && (
        <div data-testid="id-token-report">
          <p className={report.error ? 'bad' : 'good'} role="status" data-testid="id-token-verdict">
            {report.error ? `Fails: ${report.error}` : 'Valid: every check passed.'}
          </p>
          <ol className="login-checks">
            {report.checks.map((c) => (
              <li
                key={c.name}
                className={c.ok === true ? 'good' : c.ok === false ? 'bad' : 'muted'}
              >
                <strong>{CHECK_LABELS[c.name]}</strong>:{' '}
                {c.ok === true ? 'ok' : c.ok === false ? 'failed' : 'skipped'}
                {c.detail !== 'ok' && <span className="muted"> — {c.detail}</span>}
              </li>
            ))}
          </ol>
          <div className="columns">
            <section aria-label="Header">
              <h4>Header</h4>
              <pre className="mono">{JSON.stringify(report.header ?? null, null, 2)}</pre>
            </section>
            <section aria-label="Payload">
              <h4>Payload</h4>
              <pre className="mono" data-testid="id-token-payload">
                {JSON.stringify(report.payload ?? null, null, 2)}
              </pre>
              {typeof report.payload?.exp === 'number' && (
                <p className="muted">
                  exp {new Date(report.payload.exp * 1000).toISOString()} · now{' '}
                  {new Date(report.expected.now).toISOString()}
                </p>
              )}
            </section>
          </div>
        </div>
      )}
    </Panel>
  );
}
