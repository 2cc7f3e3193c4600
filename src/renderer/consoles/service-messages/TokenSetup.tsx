// Where the console's two tokens come from: the user's access token (typed in, or minted by
// the emulator for a new test user) and the channel token (the environment's, or an issued
// stateless one, which mini app channels need). Both are secrets on screen: a password field
// and a masked value, each with a Copy button (docs/decisions.md, "Secrets in answers").
import { CopyButton, CopyableSecret } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';

interface TokenSetupProps {
  userToken: string;
  onUserToken: (token: string) => void;
  channelToken: string | undefined;
  onChannelToken: (token: string | undefined) => void;
}

export function TokenSetup({
  userToken,
  onUserToken,
  channelToken,
  onChannelToken,
}: TokenSetupProps) {
  const api = useApi();
  const mint = useAction();
  const issue = useAction();
  return (
    <Panel title="Tokens">
      <div className="inline-form">
        <TextField
          label="User access token (embedAccessToken)"
          className="grow"
          value={userToken}
          onChange={onUserToken}
          type="password"
          autoComplete="off"
          mono
        >
          {userToken && <CopyButton value={userToken} label="user access token" />}
        </TextField>
        <button
          type="button"
          disabled={mint.busy}
          onClick={() =>
            void mint.run(async () => {
              const user = await api.emulator.addUser({ displayName: 'Service message user' });
              const token = await api.emulator.mintUserToken({
                userId: user.userId,
                scopes: ['openid', 'profile'],
              });
              onUserToken(token.accessToken);
            })
          }
        >
          Mint a test user token
        </button>
      </div>
      <ErrorNotice error={mint.error} />
      <div className="inline-form">
        <p className="note" data-testid="sm-channel-token">
          Channel token:{' '}
          {channelToken ? (
            <>
              issued stateless token <CopyableSecret value={channelToken} label="channel token" />
            </>
          ) : (
            "the environment's channel access token (long-lived)"
          )}
        </p>
        <button
          type="button"
          disabled={issue.busy}
          onClick={() =>
            void issue.run(async () => {
              const token = await api.embed.issueChannelToken({ kind: 'stateless' });
              onChannelToken(token.accessToken);
            })
          }
        >
          Issue a stateless channel token
        </button>
        {channelToken && (
          <button type="button" className="link" onClick={() => onChannelToken(undefined)}>
            Use the environment's token
          </button>
        )}
      </div>
      <ErrorNotice error={issue.error} />
    </Panel>
  );
}
