// One request and its answer as sent and received (credentials masked), with "copy as curl"
// that reveals the secrets only when asked.
import { useState } from 'react';
import type { LoginSendOutput } from '../../../core/app/contracts/login';
import { CopyableSecret } from '../../components/CopyButton';
import { useApi } from '../../lib/api-context';
import { copyText } from '../../lib/clipboard';
import { errorMessage } from '../../../core/errors/message';

export function ExchangeView({ result, label }: { result: LoginSendOutput; label: string }) {
  const { exchange, status, ok, body, credentials } = result;
  const { request, response } = exchange;
  return (
    <figure
      className="login-exchange"
      data-testid="login-exchange"
      aria-label={`${label} exchange`}
    >
      <figcaption>
        <span className={ok ? 'badge good' : 'badge status'} data-testid="login-status">
          HTTP {status}
        </span>{' '}
        <code className="mono">
          {request.method} {requestTarget(request.url)}
        </code>
        {response?.requestId && (
          <span className="request-id">
            {' '}
            request id <code className="mono">{response.requestId}</code>
          </span>
        )}
        {response && <span className="muted"> · {response.durationMs} ms</span>}
      </figcaption>
      <div className="login-exchange-parts">
        <section aria-label="Request">
          <h4>Request</h4>
          <pre className="mono">
            {Object.entries(request.headers)
              .map(([k, v]) => `${k}: ${v}`)
              .join('\n')}
            {request.body !== undefined && `\n\n${request.body}`}
          </pre>
        </section>
        <section aria-label="Response">
          <h4>Response</h4>
          <pre className="mono" data-testid="login-response-body">
            {body === undefined ? '(empty body)' : JSON.stringify(body, null, 2)}
          </pre>
          {Object.keys(credentials).length > 0 && (
            <p className="muted" aria-label="Credentials in the answer">
              {Object.entries(credentials).map(([name, value]) => (
                <span key={name}>
                  {name} <CopyableSecret value={value} label={`${name} from ${label}`} />{' '}
                </span>
              ))}
            </p>
          )}
        </section>
      </div>
      <CurlCopy exchangeId={exchange.id} label={label} />
    </figure>
  );
}

function CurlCopy({ exchangeId, label }: { exchangeId: string; label: string }) {
  const api = useApi();
  const [reveal, setReveal] = useState(false);
  const [note, setNote] = useState('');
  async function copy() {
    try {
      const { curl } = await api.login.curl({ exchangeId, reveal });
      setNote(
        (await copyText(curl))
          ? reveal
            ? 'Copied with secrets'
            : 'Copied, secrets masked'
          : 'Copy failed',
      );
    } catch (error) {
      setNote(errorMessage(error));
    }
  }
  return (
    <div className="button-row">
      <button type="button" onClick={() => void copy()} aria-label={`Copy ${label} as curl`}>
        Copy as curl
      </button>
      <label>
        <input type="checkbox" checked={reveal} onChange={(e) => setReveal(e.target.checked)} />{' '}
        include secrets
      </label>
      <span role="status" className="muted" data-testid="curl-note">
        {note}
      </span>
    </div>
  );
}

/** The path and query as masked, without re-encoding the mask as a URL object would. */
function requestTarget(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
}
