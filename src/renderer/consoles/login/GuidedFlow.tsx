// The guided login: mint a code (emulator) or paste one, then issue, verify, userinfo,
// profile, friendship, refresh and revoke, each request and answer shown, with the token's
// state alongside and the emulator's clock one click away.
import { useState } from 'react';
import type {
  LoginContext,
  LoginSendInput,
  LoginSendOutput,
} from '../../../core/app/contracts/login';
import type { TokenState } from '../../../core/platform/login/schema';
import { CopyableSecret } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { ExchangeView } from './ExchangeView';
import { TokenDiagram } from './TokenDiagram';

type Step = 'issue' | 'verify' | 'userinfo' | 'profile' | 'friendship' | 'refresh' | 'revoke';
const STEPS: { id: Step; label: string }[] = [
  { id: 'issue', label: 'Issue tokens' },
  { id: 'verify', label: 'Verify access token' },
  { id: 'userinfo', label: 'Get user information' },
  { id: 'profile', label: 'Get profile' },
  { id: 'friendship', label: 'Get friendship status' },
  { id: 'refresh', label: 'Refresh access token' },
  { id: 'revoke', label: 'Revoke access token' },
];
const SCOPES = ['openid', 'profile', 'email'] as const;
const DAY_MS = 86_400_000;

interface Tokens {
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
}

/** What the answers alone say about the token, for a platform whose records we cannot read. */
function inferState(step: Step, result: LoginSendOutput, prev: TokenState | undefined) {
  if ((step === 'issue' || step === 'refresh') && result.ok) return 'valid';
  if (step === 'revoke' && result.ok) return 'revoked';
  if (step === 'verify') return result.ok ? 'valid' : prev === 'revoked' ? prev : 'expired';
  return prev;
}

export function GuidedFlow({
  context,
  onIdToken,
  onMinted,
}: {
  context: LoginContext;
  onIdToken: (t: string) => void;
  /** A code was minted: the emulator has the user it was minted for. */
  onMinted: () => void;
}) {
  const api = useApi();
  const emulator = context.kind === 'emulator';
  const [version, setVersion] = useState<'2.1' | '2.0'>('2.1');
  const [scopes, setScopes] = useState<string[]>(['openid', 'profile']);
  const [redirectUri, setRedirectUri] = useState('https://app.example/callback');
  const [nonce, setNonce] = useState(() => crypto.randomUUID().slice(0, 8));
  const [pkce, setPkce] = useState<'S256' | 'plain' | 'none'>('S256');
  const [code, setCode] = useState('');
  const [codeVerifier, setCodeVerifier] = useState<string>();
  const [tokens, setTokens] = useState<Tokens>({});
  const [results, setResults] = useState<Partial<Record<Step, LoginSendOutput>>>({});
  const [state, setState] = useState<TokenState>();
  const [stateDetail, setStateDetail] = useState<string>();
  const action = useAction<unknown>();

  async function syncState(accessToken: string | undefined, fallback: TokenState | undefined) {
    if (!emulator || !accessToken) return setState(fallback);
    const view = await api.login.tokenState({ accessToken });
    setState(view.state);
    const days = (view.expiresAt - view.now) / DAY_MS;
    setStateDetail(
      `${days > 0 ? `expires in ${days.toFixed(1)} days` : `expired ${(-days).toFixed(1)} days ago`}; refresh token ${view.refreshToken?.state ?? 'none'}`,
    );
  }

  const mint = () =>
    action.run(async () => {
      const minted = await api.login.mintCode({
        scopes,
        redirectUri,
        nonce: nonce || undefined,
        pkce,
      });
      setCode(minted.code.code);
      setCodeVerifier(minted.codeVerifier);
      setResults({});
      setTokens({});
      setState(undefined);
      setStateDetail(undefined);
      onMinted();
      return minted;
    });

  function inputFor(step: Step): LoginSendInput {
    const accessToken = tokens.accessToken ?? '';
    switch (step) {
      case 'issue':
        return { operation: 'issue', version, code, redirectUri, codeVerifier };
      case 'verify':
        return { operation: 'verify', version, accessToken };
      case 'userinfo':
        return { operation: 'userinfo', accessToken, method: 'GET' };
      case 'profile':
        return { operation: 'profile', accessToken };
      case 'friendship':
        return { operation: 'friendship', accessToken };
      case 'refresh':
        return { operation: 'refresh', version, refreshToken: tokens.refreshToken ?? '' };
      case 'revoke':
        return {
          operation: 'revoke',
          version,
          token: (version === '2.1' ? tokens.accessToken : tokens.refreshToken) ?? '',
        };
    }
  }

  const run = (step: Step) =>
    action.run(async () => {
      const result = await api.login.send(inputFor(step));
      setResults((prev) => ({ ...prev, [step]: result }));
      let next = tokens;
      if ((step === 'issue' || step === 'refresh') && result.ok) {
        const { access_token, refresh_token, id_token } = result.credentials;
        next = {
          accessToken: access_token,
          refreshToken: refresh_token,
          idToken: id_token ?? tokens.idToken,
        };
        setTokens(next);
        if (id_token) onIdToken(id_token);
      }
      await syncState(next.accessToken, inferState(step, result, state));
      return result;
    });

  const advance = (days: number) =>
    action.run(async () => {
      const clock = await api.emulator.advanceClock({ ms: days * DAY_MS });
      await syncState(tokens.accessToken, state);
      return clock;
    });

  const toggleScope = (scope: string, on: boolean) =>
    setScopes((prev) => (on ? [...prev, scope] : prev.filter((s) => s !== scope)));

  return (
    <Panel title="Guided login flow" testId="guided-flow">
      <div className="login-flow-settings">
        <fieldset>
          <legend>Version</legend>
          {(['2.1', '2.0'] as const).map((v) => (
            <label key={v}>
              <input
                type="radio"
                name="flow-version"
                checked={version === v}
                onChange={() => setVersion(v)}
              />{' '}
              v{v}
              {v === '2.0' && ' (deprecated: scope P, no ID token)'}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s}>
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) => toggleScope(s, e.target.checked)}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        <TextField
          label="Redirect URI"
          value={redirectUri}
          onChange={setRedirectUri}
          mono
          className="url"
        />
        <TextField label="Nonce" value={nonce} onChange={setNonce} mono hint="Empty: no nonce" />
        <div className="field">
          <label htmlFor="flow-pkce">PKCE</label>
          <select
            id="flow-pkce"
            value={pkce}
            onChange={(e) => setPkce(e.target.value as typeof pkce)}
          >
            <option value="S256">S256</option>
            <option value="plain">plain</option>
            <option value="none">none</option>
          </select>
        </div>
      </div>

      <ol className="login-steps">
        <li>
          <h3>1. Authorization code</h3>
          {emulator ? (
            <button type="button" onClick={() => void mint()} disabled={action.busy}>
              Mint code
            </button>
          ) : (
            <p className="note">
              Minting a code needs the local emulator. On this platform the code comes from its
              authorization page after the user signs in in a browser; paste the code your redirect
              URI received.
            </p>
          )}
          <TextField
            label="Code"
            value={code}
            onChange={setCode}
            mono
            className="grow"
            type="password"
            autoComplete="off"
          />
          {codeVerifier && (
            <p className="muted">
              code_verifier <CopyableSecret value={codeVerifier} label="code_verifier" />
            </p>
          )}
        </li>
        {STEPS.map((step, i) => {
          const result = results[step.id];
          const needsToken = step.id !== 'issue';
          const notOnV20 = version === '2.0' && step.id === 'userinfo';
          return (
            <li key={step.id}>
              <h3>
                {i + 2}. {step.label}
              </h3>
              <button
                type="button"
                onClick={() => void run(step.id)}
                disabled={
                  action.busy || (step.id === 'issue' ? !code : needsToken && !tokens.accessToken)
                }
              >
                {step.label}
              </button>
              {notOnV20 && (
                <span className="muted">
                  {' '}
                  userinfo is a v2.1 call: a v2.0 token (scope P) is refused with 403.
                </span>
              )}
              {result && <ExchangeView result={result} label={step.label} />}
            </li>
          );
        })}
      </ol>
      <ErrorNotice error={action.error} testId="flow-error" />
      <h3>Token state</h3>
      <TokenDiagram
        state={state}
        source={emulator ? 'emulator' : 'observed'}
        detail={stateDetail}
      />
      {emulator && (
        <div className="button-row" aria-label="Emulator clock">
          <button type="button" onClick={() => void advance(1)} disabled={action.busy}>
            Advance clock 1 day
          </button>
          <button type="button" onClick={() => void advance(31)} disabled={action.busy}>
            Advance clock 31 days
          </button>
          <button type="button" onClick={() => void advance(91)} disabled={action.busy}>
            Advance clock 91 days
          </button>
        </div>
      )}
    </Panel>
  );
}
