// The Login console's use case: each platform call goes through the login client with a
// recording fetch, so the console can show (and copy as curl) exactly what was sent and
// answered, error or not; the local ID token inspector; and the emulator-only operations that
// stand in for the browser's authorization step.
import { createHash, randomBytes } from 'node:crypto';
import { PlatformError } from '../../platform/http';
import { LoginAdminClient } from '../../platform/login/admin-client';
import { LoginClient } from '../../platform/login/client';
import { credentialsOf, maskExchange, recordingFetch, toCurl } from '../../platform/login/exchange';
import { checkIdToken } from '../../platform/login/id-token';
import type { AppType, Exchange, MintCodeInput } from '../../platform/login/schema';
import { maskJson } from '../../platform/secret-mask';
import type { ActiveChannel } from '../environments';
import { NotConfiguredError, SetupError } from '../errors';
import { emulatorChannel, type ConsoleSetup } from './console-setup';

/** Recent exchanges, unmasked, so "copy as curl" can reveal secrets when asked. */
const KEPT_EXCHANGES = 200;

type Version = '2.1' | '2.0';
/**
 * `clientId` defaults to the active channel; the client secret is the stored channel secret
 * unless `useChannelSecret` is false, then `clientSecret` (absent: not sent).
 */
interface Credentials {
  clientId?: string;
  useChannelSecret: boolean;
  clientSecret?: string;
}

/** One platform login operation, as the console sends it (the contract's `login:send`). */
export type LoginRequest =
  | ({
      operation: 'issue';
      version: Version;
      code: string;
      redirectUri: string;
      codeVerifier?: string;
    } & Credentials)
  | ({ operation: 'refresh'; version: Version; refreshToken: string } & Credentials)
  | { operation: 'verify'; version: Version; accessToken: string }
  | ({ operation: 'revoke'; version: Version; token: string } & Credentials)
  | { operation: 'deauthorize'; userAccessToken: string }
  | {
      operation: 'verifyIdToken';
      idToken: string;
      clientId?: string;
      nonce?: string;
      userId?: string;
    }
  | { operation: 'userinfo'; accessToken: string; method: 'GET' | 'POST' }
  | { operation: 'profile'; accessToken: string }
  | { operation: 'friendship'; accessToken: string };

const INSTEAD =
  'on a real platform a code comes from its authorization page after the user signs in in a browser; paste the code your redirect URI received instead.';

function secretOf(
  channel: ActiveChannel,
  input: { useChannelSecret: boolean; clientSecret?: string },
) {
  if (!input.useChannelSecret) return input.clientSecret;
  if (!channel.channelSecret)
    throw new SetupError(
      'clientSecret',
      'no channel secret is stored for this environment: add it in Settings or type one',
    );
  return channel.channelSecret;
}

async function send(
  client: LoginClient,
  channel: ActiveChannel,
  input: LoginRequest,
): Promise<unknown> {
  const clientId = ('clientId' in input && input.clientId) || channel.channelId;
  switch (input.operation) {
    case 'issue': {
      const base = { code: input.code, redirectUri: input.redirectUri, clientId };
      const clientSecret = secretOf(channel, input);
      return input.version === '2.1'
        ? client.issueToken({ ...base, clientSecret, codeVerifier: input.codeVerifier })
        : client.issueTokenV20({ ...base, clientSecret: clientSecret ?? '' });
    }
    case 'refresh': {
      const clientSecret = secretOf(channel, input);
      return input.version === '2.1'
        ? client.refreshToken({ refreshToken: input.refreshToken, clientId, clientSecret })
        : client.refreshTokenV20({
            refreshToken: input.refreshToken,
            clientId,
            clientSecret: clientSecret ?? '',
          });
    }
    case 'verify':
      return input.version === '2.1'
        ? client.verifyAccessToken(input.accessToken)
        : client.verifyAccessTokenV20(input.accessToken);
    case 'revoke':
      return input.version === '2.1'
        ? client.revokeAccessToken({
            accessToken: input.token,
            clientId,
            clientSecret: secretOf(channel, input),
          })
        : client.revokeV20(input.token);
    case 'deauthorize':
      if (!channel.channelAccessToken)
        throw new NotConfiguredError(
          'Deauthorize needs the channel access token: add it in Settings.',
        );
      return client.deauthorize(input.userAccessToken, channel.channelAccessToken);
    case 'verifyIdToken':
      return client.verifyIdToken({
        idToken: input.idToken,
        clientId,
        nonce: input.nonce,
        userId: input.userId,
      });
    case 'userinfo':
      return client.userInfo(input.accessToken, input.method);
    case 'profile':
      return client.profile(input.accessToken);
    case 'friendship':
      return client.friendship(input.accessToken);
  }
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class LoginConsole {
  private readonly exchanges = new Map<string, Exchange>();

  constructor(private readonly setup: ConsoleSetup) {}

  private admin() {
    return new LoginAdminClient(this.setup.emulator().adminUrl);
  }

  private onEmulator(what: string) {
    return emulatorChannel(this.setup, what, INSTEAD);
  }

  /** The emulator's virtual clock when it is the target, so expiry matches what it answers. */
  private now(channel: ActiveChannel): number {
    const emulator = this.setup.running();
    return channel.kind === 'emulator' && emulator ? emulator.ctx.clock.now() : Date.now();
  }

  async context() {
    const channel = await this.setup.envs.activeChannel();
    return {
      kind: channel.kind,
      baseUrl: channel.baseUrl,
      channelId: channel.channelId,
      hasChannelSecret: Boolean(channel.channelSecret),
      hasChannelAccessToken: Boolean(channel.channelAccessToken),
    };
  }

  async send(input: LoginRequest) {
    const channel = await this.setup.envs.activeChannel();
    let last: Exchange | undefined;
    // No retries: the console shows a 429 as the platform answered it.
    const client = new LoginClient(channel.baseUrl, {
      ...this.setup.http,
      maxRetries: 0,
      fetch: recordingFetch(
        (e) => (last = e),
        () => this.now(channel),
      ),
    });
    let ok = true;
    try {
      await send(client, channel, input);
    } catch (err) {
      if (!(err instanceof PlatformError) || !last?.response) throw err;
      ok = false;
    }
    if (!last?.response) throw new Error('the request was not recorded');
    this.exchanges.set(last.id, last);
    if (this.exchanges.size > KEPT_EXCHANGES)
      this.exchanges.delete(this.exchanges.keys().next().value as string);
    const body = parseBody(last.response.body);
    return {
      exchange: maskExchange(last),
      ok,
      status: last.response.status,
      body: maskJson(body),
      credentials: credentialsOf(body),
    };
  }

  curl(exchangeId: string, reveal: boolean) {
    const exchange = this.exchanges.get(exchangeId);
    if (!exchange)
      throw new SetupError('exchangeId', 'no such request: it is older than the last 200');
    return { curl: toCurl(reveal ? exchange : maskExchange(exchange)) };
  }

  async inspectIdToken(input: {
    idToken: string;
    clientId?: string;
    issuer?: string;
    nonce?: string;
    userId?: string;
  }) {
    const channel = await this.setup.envs.activeChannel();
    const expected = {
      issuer: input.issuer ?? channel.baseUrl.replace(/\/+$/, ''),
      clientId: input.clientId ?? channel.channelId,
      now: this.now(channel),
    };
    // Locally only the active channel's secret is known, so it checks every token's signature.
    const report = await checkIdToken(input.idToken, () => channel.channelSecret, {
      issuer: expected.issuer,
      clientId: expected.clientId,
      nonce: input.nonce,
      userId: input.userId,
      nowSeconds: Math.floor(expected.now / 1000),
    });
    return {
      header: report.header,
      payload: report.payload,
      checks: report.checks,
      error: report.error,
      expected,
    };
  }

  async emulatorState() {
    const channel = await this.onEmulator('The emulator panel');
    const client = this.admin();
    const [channels, users] = await Promise.all([client.channels(), client.users()]);
    const settings = channels.find((c) => c.channelId === channel.channelId);
    if (!settings) throw new Error(`the emulator has no channel ${channel.channelId}`);
    const clock = this.setup.emulator().ctx.clock;
    return { channel: settings, users, clock: { now: clock.now(), offsetMs: clock.offsetMs } };
  }

  /** An authorization code minted without a browser, with its PKCE verifier if one was asked. */
  async mintCode({
    pkce,
    ...input
  }: Omit<MintCodeInput, 'channelId' | 'codeChallenge' | 'codeChallengeMethod'> & {
    pkce: 'none' | 'S256' | 'plain';
  }) {
    const channel = await this.onEmulator('Minting an authorization code');
    const codeVerifier = pkce === 'none' ? undefined : randomBytes(48).toString('base64url');
    const codeChallenge =
      codeVerifier &&
      (pkce === 'S256'
        ? createHash('sha256').update(codeVerifier).digest('base64url')
        : codeVerifier);
    const code = await this.admin().mintCode({
      ...input,
      channelId: channel.channelId,
      codeChallenge,
      codeChallengeMethod: pkce === 'none' ? undefined : pkce,
    });
    return { code, codeVerifier };
  }

  async saveChannel(input: { appType?: AppType; linkedAccount?: string | null }) {
    const channel = await this.onEmulator('Channel login settings');
    return this.admin().saveChannel(channel.channelId, {
      appType: input.appType,
      linkedAccount: input.linkedAccount === undefined ? undefined : input.linkedAccount || null,
    });
  }

  async saveProfile(
    userId: string,
    extras: { pictureUrl: string | null; statusMessage: string | null; email: string | null },
  ) {
    await this.onEmulator('Profile data');
    return this.admin().saveProfile(userId, {
      pictureUrl: extras.pictureUrl || null,
      statusMessage: extras.statusMessage || null,
      email: extras.email || null,
    });
  }

  async setFriendship(input: { userId: string; friend: boolean; blocked: boolean }) {
    const channel = await this.onEmulator('Friendship state');
    return this.admin().setFriendship({ ...input, channelId: channel.channelId });
  }

  async tokenState(accessToken: string) {
    await this.onEmulator('Token state');
    return this.admin().tokenState(accessToken);
  }
}
