// Module channels: platform calls as a module channel (the active environment's channel, or an
// emulator module channel picked by ID) and the emulator's admin API for accounts, friends and
// approvals.
import { pathSegment } from '../../platform/url-text';
import { z } from 'zod';
import { PlatformHttp } from '../../platform/http';
import { ModulesClient } from '../../platform/modules/client';
import {
  authorizationSchema,
  moduleBotSchema,
  moduleStateSchema,
} from '../../platform/modules/schema';
import type { modulesOperations } from '../contracts/modules';
import { AppFailure } from '../errors';
import { runningEmulator, type AppContext, type AreaHandlers } from './context';

interface Acting {
  baseUrl: string;
  channelId: string;
  channelAccessToken?: string;
  channelSecret?: string;
}

export function modulesHandlers(ctx: AppContext): AreaHandlers<typeof modulesOperations> {
  const admin = () =>
    new PlatformHttp({ baseUrl: `${runningEmulator(ctx).adminUrl}/modules` }, { maxRetries: 0 });

  async function actingAs(moduleChannelId: string | undefined): Promise<Acting> {
    if (!moduleChannelId) return ctx.envs.activeChannel();
    const emulator = runningEmulator(ctx);
    const channel = emulator.channels().find((c) => c.channelId === moduleChannelId);
    if (!channel)
      throw AppFailure.field('moduleChannelId', `the emulator has no channel ${moduleChannelId}`);
    return { baseUrl: emulator.url, ...channel };
  }

  async function client(
    moduleChannelId: string | undefined,
    options: { botUserIdHeader?: string; managerBaseUrl?: string } = {},
  ) {
    const acting = await actingAs(moduleChannelId);
    if (!acting.channelAccessToken)
      throw new AppFailure({
        code: 'not_configured',
        message: 'The channel has no access token stored.',
      });
    return {
      acting,
      modules: new ModulesClient(
        { baseUrl: acting.baseUrl, channelAccessToken: acting.channelAccessToken },
        { ...ctx.options.http, ...options },
      ),
    };
  }

  const ok = { ok: true as const };
  return {
    'modules:emulatorState': () => admin().request('GET', '/state', { schema: moduleStateSchema }),
    'modules:createModuleChannel': ({ name }) =>
      admin().request('POST', '/channels', {
        body: { name },
        schema: z.object({ channelId: z.string(), name: z.string() }),
      }),
    'modules:createAccount': (input) =>
      admin().request('POST', '/bots', { body: input, schema: moduleBotSchema }),
    'modules:addChat': ({ botId, chatId }) =>
      admin().request('POST', `/bots/${pathSegment(botId, 'botId')}/chats`, {
        body: { chatId },
        schema: z.object({ botId: z.string(), chatId: z.string() }),
      }),
    'modules:accountAction': ({ botId, action }) =>
      admin().request('POST', `/bots/${pathSegment(botId, 'botId')}/${action}`, {
        schema: moduleBotSchema,
      }),
    'modules:authorize': (input) =>
      admin().request('POST', '/authorize', { body: input, schema: authorizationSchema }),
    'modules:setBotUserIdHeader': (input) =>
      admin().request('PUT', '/settings', {
        body: input,
        schema: z.object({ botUserIdHeader: z.string() }),
      }),

    'modules:attach': async ({
      moduleChannelId,
      managerBaseUrl,
      confirmManagerOrigin,
      via,
      ...input
    }) => {
      const { acting, modules } = await client(moduleChannelId, { managerBaseUrl });
      // The channel's ID and secret go as credentials to the manager URL: only to the origin of
      // the environment they belong to, unless the user confirmed that other origin
      // (docs/decisions.md, "Emulator fidelity and hardening, second pass").
      const home = new URL(acting.baseUrl).origin;
      const target = managerBaseUrl ? new URL(managerBaseUrl).origin : home;
      if (target !== home && confirmManagerOrigin !== target)
        throw AppFailure.field(
          'managerBaseUrl',
          `is on ${target}, not ${home} where channel ${acting.channelId} belongs: sending its ID and secret there needs your confirmation (confirmManagerOrigin: "${target}")`,
        );
      if (!acting.channelSecret)
        throw new AppFailure({
          code: 'not_configured',
          message: 'Attach needs the module channel secret: enter it in Settings.',
        });
      return modules.attach(input, {
        channelId: acting.channelId,
        channelSecret: acting.channelSecret,
        via,
      });
    },
    'modules:detach': async ({ moduleChannelId, botId }) => {
      await (await client(moduleChannelId)).modules.detach(botId);
      return ok;
    },
    'modules:acquire': async ({
      moduleChannelId,
      chatId,
      botId,
      expired,
      ttl,
      botUserIdHeader,
    }) => {
      await (
        await client(moduleChannelId, { botUserIdHeader })
      ).modules.acquireControl(chatId, botId, {
        expired,
        ...(ttl !== undefined && { ttl }),
      });
      return ok;
    },
    'modules:release': async ({ moduleChannelId, chatId, botId, botUserIdHeader }) => {
      await (
        await client(moduleChannelId, { botUserIdHeader })
      ).modules.releaseControl(chatId, botId);
      return ok;
    },
    'modules:listBots': async ({ moduleChannelId, limit, start }) =>
      (await client(moduleChannelId)).modules.listBots({ limit, start }),
  };
}
