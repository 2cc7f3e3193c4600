// The token lifecycle of docs/platform-api.md#login-lifecycle as a small state diagram, the current
// state highlighted.
import type { TokenState } from '../../../core/platform/login/schema';

const STATES: { id: TokenState; label: string; how: string }[] = [
  { id: 'valid', label: 'Valid', how: 'issued or refreshed' },
  { id: 'expired', label: 'Expired', how: '30 days passed; refresh while the refresh token lives' },
  { id: 'revoked', label: 'Revoked', how: 'revoke: 200, empty body' },
  { id: 'deauthorized', label: 'Deauthorized', how: 'deauthorize: 204; again: 400' },
];

interface TokenDiagramProps {
  state: TokenState | undefined;
  /** Where the state came from: the emulator's own records, or the answers seen so far. */
  source: 'emulator' | 'observed';
  detail?: string;
}

export function TokenDiagram({ state, source, detail }: TokenDiagramProps) {
  return (
    <div className="login-diagram" data-testid="token-diagram">
      <ol aria-label="Token states">
        <li
          className={state === undefined ? 'current' : undefined}
          aria-current={state === undefined ? 'step' : undefined}
        >
          <strong>No token</strong>
          <span className="muted">issue with a code</span>
        </li>
        {STATES.map((s) => (
          <li
            key={s.id}
            className={`login-state-${s.id} ${state === s.id ? 'current' : ''}`}
            aria-current={state === s.id ? 'step' : undefined}
          >
            <strong>{s.label}</strong>
            <span className="muted">{s.how}</span>
          </li>
        ))}
      </ol>
      <p className="note" data-testid="token-state">
        {state ? `Access token is ${state}` : 'No access token yet'}
        {detail && ` · ${detail}`}{' '}
        <span className="muted">
          (
          {source === 'emulator' ? 'from the emulator’s records' : 'inferred from the answers seen'}
          )
        </span>
      </p>
    </div>
  );
}
