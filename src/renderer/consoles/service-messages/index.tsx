// Console for service messages (docs/platform-api.md#service-messages): issue a notification token
// from a user's access token, send templated messages with it (each send renews it, five at most,
// one year), and see what the emulator delivered.
import { useState } from 'react';
import type { NotificationToken } from '../../../core/platform/service-messages/schema';
import { CopyableSecret } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useApi } from '../../lib/api-context';
import { formatTime } from '../../lib/format';
import { useAction } from '../../lib/use-action';
import { useLoad } from '../../lib/use-load';
import { SendForm } from './SendForm';
import { TokenSetup } from './TokenSetup';
import { LoadFailure } from '../../components/LoadFailure';

interface Sent {
  templateName: string;
  answer: NotificationToken;
  renewed: boolean;
}

export function ServiceMessages() {
  const api = useApi();
  const templates = useLoad((api) => api.serviceMessages.listTemplates({}), []);
  const delivered = useLoad((api) => api.serviceMessages.listSent({}), []);
  const [userToken, setUserToken] = useState('');
  const [channelToken, setChannelToken] = useState<string>();
  const [token, setToken] = useState<NotificationToken>();
  const [sends, setSends] = useState<Sent[]>([]);
  const issue = useAction();
  const ended = token !== undefined && token.remainingCount === 0;

  return (
    <div className="page">
      <header className="page-header">
        <h1>Service messages</h1>
        <p className="muted">Notification tokens and templated messages to mini app users.</p>
      </header>
      <TokenSetup
        userToken={userToken}
        onUserToken={setUserToken}
        channelToken={channelToken}
        onChannelToken={setChannelToken}
      />
      <Panel title="Notification token">
        <div className="button-row">
          <button
            type="button"
            className="primary"
            disabled={issue.busy || !userToken}
            onClick={() =>
              void issue.run(async () => {
                setToken(
                  await api.serviceMessages.issueToken({
                    embedAccessToken: userToken,
                    channelAccessToken: channelToken,
                  }),
                );
                setSends([]);
              })
            }
            aria-describedby={userToken ? undefined : 'sm-issue-why'}
          >
            Issue notification token
          </button>
          {/* A greyed-out button says what it waits for. */}
          {!userToken && (
            <span className="note" id="sm-issue-why" data-testid="sm-issue-why">
              Needs a user access token: mint a test one above, or paste the mini app’s.
            </span>
          )}
        </div>
        <ErrorNotice error={issue.error} testId="sm-issue-error" />
        {token && (
          <dl className="facts" data-testid="sm-token">
            <dt>Token</dt>
            <dd>
              <CopyableSecret value={token.notificationToken} label="notification token" />
            </dd>
            <dt>Remaining</dt>
            <dd data-testid="sm-remaining">{token.remainingCount}</dd>
            <dt>Expires in</dt>
            <dd data-testid="sm-expires">{token.expiresIn} s</dd>
            <dt>Session</dt>
            <dd className="mono">{token.sessionId}</dd>
          </dl>
        )}
        {ended && (
          <p className="note" role="status" data-testid="sm-ended">
            The token was not renewed: it is used up or expired. Issue a new one from a new user
            access token.
          </p>
        )}
        {token && templates.value && (
          <SendForm
            templates={templates.value}
            token={token}
            channelToken={channelToken}
            onSent={({ templateName, answer }) => {
              setSends((prev) => [
                ...prev,
                {
                  templateName,
                  answer,
                  renewed: answer.notificationToken !== token.notificationToken,
                },
              ]);
              setToken(answer);
              delivered.reload();
            }}
          />
        )}
        {templates.error !== undefined && (
          <LoadFailure error={templates.error} onRetry={templates.reload} />
        )}
        {sends.length > 0 && (
          <table className="grid" aria-label="Sends with this token" data-testid="sm-sends">
            <TableHead columns={['#', 'Template', 'Token', 'Remaining', 'Expires in (s)']} />
            <tbody>
              {sends.map((s, i) => (
                <tr key={i}>
                  <td>{i + 1}</td>
                  <td className="mono">{s.templateName}</td>
                  <td>{s.renewed ? 'renewed' : 'not renewed'}</td>
                  <td>{s.answer.remainingCount}</td>
                  <td>{s.answer.expiresIn}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      <Panel
        title="Delivered by the emulator"
        actions={
          <button type="button" className="link" onClick={delivered.reload}>
            Refresh
          </button>
        }
      >
        {delivered.error !== undefined && (
          <LoadFailure error={delivered.error} onRetry={delivered.reload} />
        )}
        {delivered.value && delivered.value.length === 0 && (
          <p className="note empty">No service message sent yet.</p>
        )}
        {delivered.value && delivered.value.length > 0 && (
          <table className="grid" aria-label="Delivered service messages">
            <TableHead columns={['Sent', 'User', 'Template', 'Params', 'Last of token']} />
            <tbody>
              {delivered.value.map((m) => (
                <tr key={m.id}>
                  <td className="mono">{formatTime(m.sentAt)}</td>
                  <td className="mono">{m.userId}</td>
                  <td className="mono">{m.templateName}</td>
                  <td className="mono">{JSON.stringify(m.params)}</td>
                  <td>{m.lastOfToken ? 'yes' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </div>
  );
}
