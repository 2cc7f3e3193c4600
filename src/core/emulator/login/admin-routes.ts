// The login emulator's admin API (`/__admin/login`): the authorization step the platform does
// not show (minting codes), channel app types and linked official accounts, profile extras,
// friendships, and a token's lifecycle state for the console's diagram.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound, parseOr400, type EmulatorContext } from '../area';
import {
  AUTHORIZATION_CODE_TTL_MS,
  channelSettingsInputSchema,
  friendshipInputSchema,
  mintCodeInputSchema,
  profileExtrasInputSchema,
  type MintedCode,
  type TokenStateView,
} from '../../platform/login/schema';
import { userIdField } from '../../platform/user-id';
import { LoginState, randomToken } from './state';

const friendshipQuery = z.object({
  channelId: z.string({ error: 'is required' }).regex(/^\d+$/, 'must be a channel ID'),
  userId: userIdField,
});

export function adminRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { clock, directory, userTokens } = ctx;
  const state = new LoginState(ctx.db, directory, () => clock.now());

  app.get('/channels', async () => directory.channels().map((c) => state.settings(c)));
  app.put<{ Params: { channelId: string } }>('/channels/:channelId', async (request, reply) => {
    const channel = state.channel(request.params.channelId);
    if (!channel) return notFound(reply, `No channel ${request.params.channelId}.`);
    const input = parseOr400(channelSettingsInputSchema, request.body, reply);
    if (!input) return;
    const current = state.settings(channel);
    const next = {
      ...current,
      appType: input.appType ?? current.appType,
      linkedAccount:
        input.linkedAccount === undefined ? current.linkedAccount : input.linkedAccount,
    };
    state.saveSettings(next);
    return next;
  });

  app.get('/users', async () =>
    directory.users().flatMap((u) => {
      const profile = state.profile(u.userId);
      return profile ? [profile] : [];
    }),
  );
  app.put<{ Params: { userId: string } }>('/users/:userId/profile', async (request, reply) => {
    const current = state.profile(request.params.userId);
    if (!current) return notFound(reply, `No user ${request.params.userId}: add the user first.`);
    const input = parseOr400(profileExtrasInputSchema, request.body, reply);
    if (!input) return;
    // Omitted keeps a value, null clears it.
    const next = {
      ...current,
      pictureUrl: input.pictureUrl === undefined ? current.pictureUrl : input.pictureUrl,
      statusMessage:
        input.statusMessage === undefined ? current.statusMessage : input.statusMessage,
      email: input.email === undefined ? current.email : input.email,
    };
    state.saveProfile(next);
    return next;
  });

  app.get('/friendships', async (request, reply) => {
    const query = parseOr400(friendshipQuery, request.query, reply);
    if (query) return state.friendship(query.channelId, query.userId);
  });
  app.put('/friendships', async (request, reply) => {
    const input = parseOr400(friendshipInputSchema, request.body, reply);
    if (!input) return;
    if (!state.channel(input.channelId)) return notFound(reply, `No channel ${input.channelId}.`);
    if (!directory.user(input.userId)) return notFound(reply, `No user ${input.userId}.`);
    const next = {
      channelId: input.channelId,
      userId: input.userId,
      friend: input.friend,
      blocked: input.blocked,
    };
    state.saveFriendship(next);
    return next;
  });

  app.post('/codes', async (request, reply) => {
    const input = parseOr400(mintCodeInputSchema, request.body, reply);
    if (!input) return;
    const channel = input.channelId ? state.channel(input.channelId) : directory.channels()[0];
    if (!channel) return notFound(reply, `No channel ${input.channelId}.`);
    if (input.userId && !directory.user(input.userId))
      return notFound(reply, `No user ${input.userId}: add the user first.`);
    const userId = input.userId ?? directory.createUser(input.displayName).userId;
    const issuedAt = clock.now();
    const code: MintedCode = {
      code: randomToken(16),
      channelId: channel.channelId,
      userId,
      scopes: [...new Set(input.scopes)],
      redirectUri: input.redirectUri,
      nonce: input.nonce,
      maxAge: input.maxAge,
      codeChallenge: input.codeChallenge,
      codeChallengeMethod: input.codeChallenge ? (input.codeChallengeMethod ?? 'S256') : undefined,
      amr: input.amr,
      issuedAt,
      expiresAt: issuedAt + AUTHORIZATION_CODE_TTL_MS,
    };
    state.saveCode(code);
    return reply.code(201).send(code);
  });

  app.get<{ Params: { accessToken: string } }>('/tokens/:accessToken', async (request, reply) => {
    const token = userTokens.get(request.params.accessToken);
    if (!token) return notFound(reply, 'No such access token.');
    const session = state.refreshFor(token.accessToken);
    const view: TokenStateView = {
      accessToken: token.accessToken,
      version: token.version,
      channelId: token.channelId,
      userId: token.userId,
      scopes: token.scopes,
      state: userTokens.state(token),
      issuedAt: token.issuedAt,
      expiresAt: token.expiresAt,
      refreshToken: session
        ? { state: state.refreshState(session), expiresAt: session.expiresAt }
        : null,
      now: clock.now(),
    };
    return view;
  });
}
