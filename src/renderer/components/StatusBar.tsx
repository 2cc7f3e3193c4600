// One line at the bottom: which environment is active, whether the embedded emulator runs,
// where secrets live, and the emulator's request traffic as it happens (its credentials masked
// where the emulator records it: docs/decisions.md, "Secrets in requests").
import type { AppStatus } from '../../core/app/contract';
import type { Activity } from '../../core/emulator/schema';
import { toAppError } from '../lib/errors';

interface StatusBarProps {
  status: AppStatus | undefined;
  statusError: unknown;
  requestCount: number;
  lastRequest: Activity | undefined;
}

export function StatusBar({ status, statusError, requestCount, lastRequest }: StatusBarProps) {
  return (
    <footer className="status-bar" data-testid="status-bar">
      {statusError !== undefined ? (
        <span className="status-item bad">
          Status unavailable: {toAppError(statusError).message}
        </span>
      ) : !status ? (
        <span className="status-item">Loading status…</span>
      ) : (
        <>
          <span className="status-item" data-testid="status-environment">
            Environment <strong>{status.environment.name}</strong>
          </span>
          <span
            className={`status-item ${status.emulator.running ? 'good' : 'bad'}`}
            data-testid="status-emulator"
          >
            Emulator{' '}
            {status.emulator.running ? (
              <>
                running <code className="mono">{status.emulator.url}</code>
              </>
            ) : (
              `stopped${status.emulator.error ? `: ${status.emulator.error}` : ''}`
            )}
          </span>
          <span className={`status-item ${status.keychain.kind === 'memory' ? 'warn' : ''}`}>
            {status.keychain.kind === 'keychain'
              ? 'Secrets in OS keychain'
              : 'Secrets in memory only'}
          </span>
          {status.notices.map((notice) => (
            <span key={notice} className="status-item warn" role="alert">
              {notice}
            </span>
          ))}
        </>
      )}
      <span className="status-item activity" data-testid="status-activity" aria-live="polite">
        {requestCount} request{requestCount === 1 ? '' : 's'}
        {lastRequest && (
          <>
            {' · last '}
            <code className="mono" title={`${lastRequest.method} ${lastRequest.path}`}>
              {lastRequest.method} {lastRequest.path}
            </code>{' '}
            <span className={requestTone(lastRequest)} data-testid="status-last">
              {lastRequest.status}
            </span>
          </>
        )}
      </span>
    </footer>
  );
}

/**
 * A GET answered 404 found nothing there yet (a product without a scenario set, which the start
 * page asks about for every product): an answer, not a failure, so it is not drawn in red
 * (docs/decisions.md, "The status bar's 404").
 */
function requestTone(request: Activity): string {
  if (request.status < 400) return 'good';
  return request.method === 'GET' && request.status === 404 ? 'muted' : 'bad';
}
