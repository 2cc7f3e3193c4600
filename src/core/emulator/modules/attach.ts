// Attach (docs/platform-api.md#modules): the module channel provider exchanges the authorization
// code the account admin approved for the account's bot ID. Served at `/module/auth/v1/token` on
// the emulator's own host, which stands in for the platform's separate manager URL.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorContext } from '../area';
import { clientCredentials } from '../client-auth';
import { acceptForms, FORM_TYPE, FormBody } from '../form-body';
import { sendModuleEvent } from './events';
import { ATTACH_MATCHED_FIELDS, DEFAULT_SCOPES } from '../../platform/modules/schema';
import type { CodeRow, ModuleStore } from './store';

/** OAuth-style error body, with `message` as well so it reads like the rest of the platform. */
function oauthError(
  reply: FastifyReply,
  status: 400 | 403,
  error: string,
  description: string,
): void {
  void reply.code(status).send({ error, error_description: description, message: description });
}

/** The code's value for a form field the authorization URL may have fixed. */
const CODE_FIELD: Record<(typeof ATTACH_MATCHED_FIELDS)[number], keyof CodeRow> = {
  region: 'region',
  basic_search_id: 'basic_search_id',
  scope: 'scope',
  brand_type: 'brand_type',
};

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function pkceMatches(code: CodeRow, verifier: string): boolean {
  const expected =
    code.code_challenge_method === 'S256'
      ? createHash('sha256').update(verifier).digest('base64url')
      : verifier;
  return sameText(expected, code.code_challenge ?? '');
}

/** The attaching channel's ID and secret: both are needed, from the header or the form. */
function attachClient(
  request: FastifyRequest,
  fields: Record<string, string>,
): { id: string; secret: string } | { problem: string } {
  const client = clientCredentials(request, fields);
  if ('problem' in client) return client;
  const { clientId, clientSecret } = client;
  if (!clientId && !clientSecret)
    return {
      problem:
        'client authentication is required: an Authorization: Basic header or client_id and client_secret',
    };
  if (!clientId) return { problem: 'client_id is required with client_secret' };
  if (!clientSecret) return { problem: 'client_secret is required with client_id' };
  return { id: clientId, secret: clientSecret };
}

export function attachRoutes(app: FastifyInstance, ctx: EmulatorContext, store: ModuleStore): void {
  // The form parser lives in this scope only; the rest of the emulator speaks JSON.
  void app.register(async (scope) => {
    acceptForms(scope);

    scope.post('/module/auth/v1/token', { config: { auth: 'none' } }, async (req, reply) => {
      if (!(req.body instanceof FormBody))
        return oauthError(reply, 400, 'invalid_request', `the body must be ${FORM_TYPE}`);
      if (req.body.repeated.length)
        return oauthError(
          reply,
          400,
          'invalid_request',
          `${req.body.repeated[0]} is given more than once`,
        );
      const fields = req.body.fields;
      if (!fields.grant_type)
        return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
      if (fields.grant_type !== 'authorization_code')
        return oauthError(
          reply,
          400,
          'unsupported_grant_type',
          'grant_type must be authorization_code',
        );
      for (const name of ['code', 'redirect_uri'])
        if (!fields[name]) return oauthError(reply, 400, 'invalid_request', `${name} is required`);

      const client = attachClient(req, fields);
      if ('problem' in client) return oauthError(reply, 400, 'invalid_request', client.problem);
      const channel = ctx.directory.channels().find((c) => c.channelId === client.id);
      if (!channel || !sameText(channel.channelSecret, client.secret))
        return oauthError(
          reply,
          403,
          'invalid_client',
          'the channel ID or channel secret is wrong',
        );
      if (!store.isModuleChannel(channel.channelId))
        return oauthError(
          reply,
          403,
          'unauthorized_client',
          `channel ${channel.channelId} is not a module channel`,
        );

      const code = store.code(fields.code as string);
      const now = ctx.clock.now();
      if (!code)
        return oauthError(reply, 400, 'invalid_grant', 'the authorization code is not known');
      if (code.used_at !== null)
        return oauthError(reply, 400, 'invalid_grant', 'the authorization code was already used');
      if (now >= code.expires_at)
        return oauthError(reply, 400, 'invalid_grant', 'the authorization code expired');
      if (code.module_channel_id !== channel.channelId)
        return oauthError(
          reply,
          400,
          'invalid_grant',
          'the authorization code was issued to another module channel',
        );
      if (fields.redirect_uri !== code.redirect_uri)
        return oauthError(
          reply,
          400,
          'invalid_grant',
          'redirect_uri differs from the one in the authorization URL',
        );
      if (code.code_challenge) {
        if (!fields.code_verifier)
          return oauthError(
            reply,
            400,
            'invalid_grant',
            'code_verifier is required: the authorization URL had a code_challenge',
          );
        if (!pkceMatches(code, fields.code_verifier))
          return oauthError(
            reply,
            400,
            'invalid_grant',
            'code_verifier does not match the code_challenge',
          );
      } else if (fields.code_verifier !== undefined)
        return oauthError(
          reply,
          400,
          'invalid_grant',
          'code_verifier was given but the authorization URL had no code_challenge',
        );
      for (const name of ATTACH_MATCHED_FIELDS) {
        const fixed = code[CODE_FIELD[name]];
        if (fields[name] !== undefined && fixed !== null && fields[name] !== fixed)
          return oauthError(
            reply,
            400,
            'invalid_request',
            `${name} differs from the one in the authorization URL`,
          );
      }
      const bot = store.bot(code.bot_id);
      if (!bot || bot.status !== 'active')
        return oauthError(
          reply,
          403,
          'access_denied',
          `the account ${code.bot_id} is ${bot ? bot.status : 'gone'}`,
        );

      store.useCode(code.code);
      const scopes = code.scope ? code.scope.split(/\s+/) : DEFAULT_SCOPES;
      store.attach(channel.channelId, bot.bot_id, scopes);
      sendModuleEvent(ctx, channel.channelId, bot.bot_id, {
        type: 'module',
        module: { type: 'attached', botId: bot.bot_id, scopes },
      });
      return { bot_id: bot.bot_id, scope: scopes.join(' '), scopes };
    });
  });
}
