// Login console: each platform call goes through the login client with a recording fetch, so
// the console can show (and copy as curl) exactly what was sent and answered, error or not.
// The emulator-only operations stand in for the browser's authorization step.
import { createHash, randomBytes } from 'node:crypto';
import { PlatformError } from '../../platform/http';
import { LoginAdminClient } from '../../platform/login/admin-client';
import { LoginClient } from '../../platform/login/client';
import { credentialsOf, maskExchange, recordingFetch, toCurl } from '../../platform/login/exchange';
import { checkIdToken } from '../../platform/login/id-token';
import type { Exchange } from '../../platform/login/schema';
import { maskJson } from '../../platform/secret-mask';
import type { LoginSendInput, loginOperations } from '../contracts/login';
import type { OpParsedInput } from '../contract';
import type { ActiveChannel } from '../../usecases/environments';
import { AppFailure } from '../errors';
import { emulatorChannel, runningEmulator, type AppContext, type AreaHandlers } from './context';

/** Recent exchanges, unmasked, so "copy as curl" can reveal secrets when asked. */
const KEPT_EXCHANGES = 200;

type SendInput = OpParsedInput<'login:send'>;

function secretOf(
  channel: ActiveChannel,
  input: { useChannelSecret: boolean; clientSecret?: string },
) {
  if (!input.useChannelSecret) return input.clientSecret;
  if (!channel.channelSecret)
    throw AppFailure.field(
      'clientSecret',
      'no channel secret is stored for this environment: add it in Settings or type one',
    );
  return channel.channelSecret;
}

async function send(
  client: LoginClient,
  channel: ActiveChannel,
  input: SendInput,
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
        throw new AppFailure({
          code: 'not_configured',
          message: 'Deauthorize needs the channel access token: add it in Settings.',
        });
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

export function loginHandlers(ctx: AppContext): AreaHandlers<typeof loginOperations> {
  const exchanges = new Map<string, Exchange>();
  const admin = () => new LoginAdminClient(runningEmulator(ctx).adminUrl);
  const onEmulator = (what: string) =>
    emulatorChannel(
      ctx,
      what,
      'on a real platform a code comes from its authorization page after the user signs in in a browser; paste the code your redirect URI received instead.',
    );
  /** The emulator's virtual clock when it is the target, so expiry matches what it answers. */
  const now = (channel: ActiveChannel) =>
    channel.kind === 'emulator' && ctx.emulator ? ctx.emulator.ctx.clock.now() : Date.now();

  return {
    'login:context': async () => {
      const channel = await ctx.envs.activeChannel();
      return {
        kind: channel.kind,
        baseUrl: channel.baseUrl,
        channelId: channel.channelId,
        hasChannelSecret: Boolean(channel.channelSecret),
        hasChannelAccessToken: Boolean(channel.channelAccessToken),
      };
    },

    'login:send': async (input) => {
      const channel = await ctx.envs.activeChannel();
      let last: Exchange | undefined;
      // No retries: the console shows a 429 as the platform answered it.
      const client = new LoginClient(channel.baseUrl, {
        ...ctx.options.http,
        maxRetries: 0,
        fetch: recordingFetch(
          (e) => (last = e),
          () => now(channel),
        ),
      });
      let ok = true;
      try {
        await send(client, channel, input as LoginSendInput & SendInput);
      } catch (err) {
        if (!(err instanceof PlatformError) || !last?.response) throw err;
        ok = false;
      }
      if (!last?.response) throw new Error('the request was not recorded');
      exchanges.set(last.id, last);
      if (exchanges.size > KEPT_EXCHANGES)
        exchanges.delete(exchanges.keys().next().value as string);
      const body = parseBody(last.response.body);
      return {
        exchange: maskExchange(last),
        ok,
        status: last.response.status,
        body: maskJson(body),
        credentials: credentialsOf(body),
      };
    },

    'login:curl': async ({ exchangeId, reveal }) => {
      const exchange = exchanges.get(exchangeId);
      if (!exchange)
        throw AppFailure.field('exchangeId', 'no such request: it is older than the last 200');
      return { curl: toCurl(reveal ? exchange : maskExchange(exchange)) };
    },

    'login:inspectIdToken': async (input) => {
      const channel = await ctx.envs.activeChannel();
      const expected = {
        issuer: input.issuer ?? channel.baseUrl.replace(/\/+$/, ''),
        clientId: input.clientId ?? channel.channelId,
        now: now(channel),
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
    },

    'login:emulatorState': async () => {
      const channel = await onEmulator('The emulator panel');
      const client = admin();
      const [channels, users] = await Promise.all([client.channels(), client.users()]);
      const settings = channels.find((c) => c.channelId === channel.channelId);
      if (!settings) throw new Error(`the emulator has no channel ${channel.channelId}`);
      const clock = runningEmulator(ctx).ctx.clock;
      return { channel: settings, users, clock: { now: clock.now(), offsetMs: clock.offsetMs } };
    },

    'login:mintCode': async ({ pkce, ...input }) => {
      const channel = await onEmulator('Minting an authorization code');
      const codeVerifier = pkce === 'none' ? undefined : randomBytes(48).toString('base64url');
      const codeChallenge =
        codeVerifier &&
        (pkce === 'S256'
          ? createHash('sha256').update(codeVerifier).digest('base64url')
          : codeVerifier);
      const code = await admin().mintCode({
        ...input,
        channelId: channel.channelId,
        codeChallenge,
        codeChallengeMethod: pkce === 'none' ? undefined : pkce,
      });
      return { code, codeVerifier };
    },

    'login:saveChannel': async (input) => {
      const channel = await onEmulator('Channel login settings');
      return admin().saveChannel(channel.channelId, {
        appType: input.appType,
        linkedAccount: input.linkedAccount === undefined ? undefined : input.linkedAccount || null,
      });
    },

    'login:saveProfile': async ({ userId, ...extras }) => {
      await onEmulator('Profile data');
      return admin().saveProfile(userId, {
        pictureUrl: extras.pictureUrl || null,
        statusMessage: extras.statusMessage || null,
        email: extras.email || null,
      });
    },

    'login:setFriendship': async (input) => {
      const channel = await onEmulator('Friendship state');
      return admin().setFriendship({ ...input, channelId: channel.channelId });
    },

    'login:tokenState': async ({ accessToken }) => {
      await onEmulator('Token state');
      return admin().tokenState(accessToken);
    },
  };
}
