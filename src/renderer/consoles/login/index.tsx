// Console for login and tokens (docs/platform-api.md#login): a guided login with the token's
// lifecycle beside it, every operation on its own form, a local ID token inspector, and (on the
// emulator) the channel and user data the platform has no API for.
import { useState } from 'react';
import { LoadFailure } from '../../components/LoadFailure';
import { useLoad } from '../../lib/use-load';
import { EmulatorSetup } from './EmulatorSetup';
import { GuidedFlow } from './GuidedFlow';
import { IdTokenInspector } from './IdTokenInspector';
import { OperationForms } from './OperationForms';

export function Login() {
  const context = useLoad((api) => api.login.context({}), []);
  const [idToken, setIdToken] = useState<string>();
  // Each code minted may add a user: the emulator's login data is read again (a new key).
  const [minted, setMinted] = useState(0);
  const ctx = context.value;
  return (
    <div className="page">
      <header className="page-header">
        <h1>Login &amp; profile</h1>
        <p className="muted">
          Tokens, ID tokens, profile and friendship, v2.1 and v2.0
          {ctx && (
            <>
              {' '}
              · channel <code className="mono">{ctx.channelId}</code> on{' '}
              <code className="mono">{ctx.baseUrl}</code>
            </>
          )}
        </p>
      </header>
      {!ctx ? (
        context.error !== undefined ? (
          <LoadFailure error={context.error} onRetry={context.reload} />
        ) : (
          <p className="note" role="status">
            Loading…
          </p>
        )
      ) : (
        <>
          <GuidedFlow
            context={ctx}
            onIdToken={setIdToken}
            onMinted={() => setMinted((n) => n + 1)}
          />
          <div className="columns">
            <OperationForms context={ctx} />
            <IdTokenInspector context={ctx} idToken={idToken} />
          </div>
          {ctx.kind === 'emulator' && <EmulatorSetup key={minted} />}
        </>
      )}
    </div>
  );
}
