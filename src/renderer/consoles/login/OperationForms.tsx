// Every login operation on its own form, sent as typed; the answer (error or not) is shown
// with its request, so a developer can try exactly what their code sends.
import { useState, type FormEvent } from 'react';
import type {
  LoginContext,
  LoginOperation,
  LoginSendInput,
  LoginSendOutput,
} from '../../../core/app/contracts/login';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { namesSecret } from '../../../core/platform/secret-mask';
import { ExchangeView } from './ExchangeView';

type FieldName =
  | 'code'
  | 'redirectUri'
  | 'codeVerifier'
  | 'refreshToken'
  | 'accessToken'
  | 'token'
  | 'userAccessToken'
  | 'idToken'
  | 'nonce'
  | 'userId';

interface OperationSpec {
  id: LoginOperation;
  title: string;
  versioned: boolean;
  /** Sends client_id (and client_secret under the channel's rule). */
  credentials: 'none' | 'id' | 'id+secret';
  fields: (version: '2.1' | '2.0') => { name: FieldName; label: string }[];
}

const OPERATIONS: OperationSpec[] = [
  {
    id: 'issue',
    title: 'Issue access token',
    versioned: true,
    credentials: 'id+secret',
    fields: (v) => [
      { name: 'code', label: 'code' },
      { name: 'redirectUri', label: 'redirect_uri' },
      ...(v === '2.1'
        ? [{ name: 'codeVerifier' as const, label: 'code_verifier (optional)' }]
        : []),
    ],
  },
  {
    id: 'refresh',
    title: 'Refresh access token',
    versioned: true,
    credentials: 'id+secret',
    fields: () => [{ name: 'refreshToken', label: 'refresh_token' }],
  },
  {
    id: 'verify',
    title: 'Verify access token',
    versioned: true,
    credentials: 'none',
    fields: () => [{ name: 'accessToken', label: 'access_token' }],
  },
  {
    id: 'revoke',
    title: 'Revoke access token',
    versioned: true,
    credentials: 'id+secret',
    fields: (v) => [{ name: 'token', label: v === '2.1' ? 'access_token' : 'refresh_token' }],
  },
  {
    id: 'deauthorize',
    title: 'Deauthorize app for a user',
    versioned: false,
    credentials: 'none',
    fields: () => [{ name: 'userAccessToken', label: 'userAccessToken' }],
  },
  {
    id: 'verifyIdToken',
    title: 'Verify ID token',
    versioned: false,
    credentials: 'id',
    fields: () => [
      { name: 'idToken', label: 'id_token' },
      { name: 'nonce', label: 'nonce (optional)' },
      { name: 'userId', label: 'user_id (optional)' },
    ],
  },
  {
    id: 'userinfo',
    title: 'Get user information',
    versioned: false,
    credentials: 'none',
    fields: () => [{ name: 'accessToken', label: 'Access token (Bearer)' }],
  },
  {
    id: 'profile',
    title: 'Get user profile',
    versioned: false,
    credentials: 'none',
    fields: () => [{ name: 'accessToken', label: 'Access token (Bearer)' }],
  },
  {
    id: 'friendship',
    title: 'Get friendship status',
    versioned: false,
    credentials: 'none',
    fields: () => [{ name: 'accessToken', label: 'Access token (Bearer)' }],
  },
];

const EMPTY: Record<FieldName | 'clientId' | 'clientSecret', string> = {
  code: '',
  redirectUri: 'https://app.example/callback',
  codeVerifier: '',
  refreshToken: '',
  accessToken: '',
  token: '',
  userAccessToken: '',
  idToken: '',
  nonce: '',
  userId: '',
  clientId: '',
  clientSecret: '',
};

export function OperationForms({ context }: { context: LoginContext }) {
  const api = useApi();
  const [operation, setOperation] = useState<LoginOperation>('verify');
  const [version, setVersion] = useState<'2.1' | '2.0'>('2.1');
  const [useChannelSecret, setUseChannelSecret] = useState(true);
  const [method, setMethod] = useState<'GET' | 'POST'>('GET');
  const action = useAction<LoginSendOutput>();
  const fields = useFields(EMPTY, action.error);
  const spec = OPERATIONS.find((o) => o.id === operation) as OperationSpec;
  const shown = spec.fields(version);
  const credentials = spec.credentials !== 'none' && !(operation === 'revoke' && version === '2.0');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const values: Record<string, unknown> = { operation };
    if (spec.versioned) values.version = version;
    for (const f of shown) values[f.name] = fields.values[f.name];
    if (credentials) {
      values.clientId = fields.values.clientId;
      if (spec.credentials === 'id+secret') {
        values.useChannelSecret = useChannelSecret;
        values.clientSecret = fields.values.clientSecret;
      }
    }
    if (operation === 'userinfo') values.method = method;
    await action.run(() => api.login.send(values as LoginSendInput));
  }

  return (
    <Panel title="Operations" testId="login-operations">
      <form className="stacked-form" onSubmit={submit} aria-label="Send a login operation">
        <div className="field">
          <label htmlFor="login-operation">Operation</label>
          <select
            id="login-operation"
            value={operation}
            onChange={(e) => setOperation(e.target.value as LoginOperation)}
          >
            {OPERATIONS.map((o) => (
              <option key={o.id} value={o.id}>
                {o.title}
              </option>
            ))}
          </select>
        </div>
        {spec.versioned && (
          <div className="field">
            <label htmlFor="login-version">Version</label>
            <select
              id="login-version"
              value={version}
              onChange={(e) => setVersion(e.target.value as '2.1' | '2.0')}
            >
              <option value="2.1">v2.1</option>
              <option value="2.0">v2.0 (deprecated)</option>
            </select>
          </div>
        )}
        {operation === 'userinfo' && (
          <div className="field">
            <label htmlFor="login-method">Method</label>
            <select
              id="login-method"
              value={method}
              onChange={(e) => setMethod(e.target.value as 'GET' | 'POST')}
            >
              <option>GET</option>
              <option>POST</option>
            </select>
          </div>
        )}
        {shown.map((f) => (
          <TextField
            key={f.name}
            label={f.label}
            {...fields.bind(f.name)}
            mono
            type={namesSecret(f.name) ? 'password' : 'text'}
            autoComplete="off"
          />
        ))}
        {credentials && (
          <>
            <TextField
              label="client_id"
              {...fields.bind('clientId')}
              mono
              placeholder={context.channelId}
              hint="Empty: the active channel"
            />
            {spec.credentials === 'id+secret' && (
              <>
                <label>
                  <input
                    type="checkbox"
                    checked={useChannelSecret}
                    onChange={(e) => setUseChannelSecret(e.target.checked)}
                  />{' '}
                  Send the stored channel secret as client_secret
                  {!context.hasChannelSecret && ' (none stored: add it in Settings)'}
                </label>
                {!useChannelSecret && (
                  <TextField
                    label="client_secret"
                    {...fields.bind('clientSecret')}
                    mono
                    type="password"
                    autoComplete="off"
                    hint="Empty: client_secret is not sent"
                  />
                )}
              </>
            )}
          </>
        )}
        {operation === 'deauthorize' && (
          <p className="hint">Sent with the channel access token as Authorization: Bearer.</p>
        )}
        <div className="button-row">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Sending…' : 'Send'}
          </button>
        </div>
      </form>
      <ErrorNotice error={action.error} shownFields={fields.names} testId="operation-error" />
      {action.value && <ExchangeView result={action.value} label={spec.title} />}
    </Panel>
  );
}
