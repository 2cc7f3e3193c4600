// Module channels: platform calls as a module channel (the active environment's channel, or an
// emulator module channel picked by ID) and the emulator's admin API for accounts, friends and
// approvals.
import { z } from 'zod';
import {
  ModulesClient,
  type AttachInput,
  type ModuleCredentials,
} from '../../platform/modules/client';
import {
  authorizationSchema,
  moduleBotSchema,
  moduleStateSchema,
  type authorizeInputSchema,
  type createBotInputSchema,
} from '../../platform/modules/schema';
import { pathSegment } from '../../platform/url-text';
import { NotConfiguredError, SetupError } from '../errors';
import { areaAdmin, type ConsoleSetup } from './console-setup';

interface Acting {
  baseUrl: string;
  channelId: string;
  channelAccessToken?: string;
  channelSecret?: string;
}

/** The module channel a platform call acts as: the active environment's when absent. */
type ModuleChannelId = string | undefined;

interface AttachRequest {
  moduleChannelId: ModuleChannelId;
  /** The manager base URL; the environment's base URL when absent. */
  managerBaseUrl?: string;
  /** The manager URL's origin the user agreed to send the channel's ID and secret to. */
  confirmManagerOrigin?: string;
  via: ModuleCredentials['via'];
}

export class ModulesConsole {
  constructor(private readonly setup: ConsoleSetup) {}

  private admin() {
    return areaAdmin(this.setup, 'modules');
  }

  private async actingAs(moduleChannelId: ModuleChannelId): Promise<Acting> {
    if (!moduleChannelId) return this.setup.envs.activeChannel();
    const emulator = this.setup.emulator();
    const channel = emulator.channels().find((c) => c.channelId === moduleChannelId);
    if (!channel)
      throw new SetupError('moduleChannelId', `the emulator has no channel ${moduleChannelId}`);
    return { baseUrl: emulator.url, ...channel };
  }

  private async client(
    moduleChannelId: ModuleChannelId,
    options: { botUserIdHeader?: string; managerBaseUrl?: string } = {},
  ) {
    const acting = await this.actingAs(moduleChannelId);
    if (!acting.channelAccessToken)
      throw new NotConfiguredError('The channel has no access token stored.');
    return {
      acting,
      modules: new ModulesClient(
        { baseUrl: acting.baseUrl, channelAccessToken: acting.channelAccessToken },
        { ...this.setup.http, ...options },
      ),
    };
  }

  emulatorState() {
    return this.admin().request('GET', '/state', { schema: moduleStateSchema });
  }

  createModuleChannel(name: string) {
    return this.admin().request('POST', '/channels', {
      body: { name },
      schema: z.object({ channelId: z.string(), name: z.string() }),
    });
  }

  createAccount(input: z.output<typeof createBotInputSchema>) {
    return this.admin().request('POST', '/bots', { body: input, schema: moduleBotSchema });
  }

  addChat(botId: string, chatId: string) {
    return this.admin().request('POST', `/bots/${pathSegment(botId, 'botId')}/chats`, {
      body: { chatId },
      schema: z.object({ botId: z.string(), chatId: z.string() }),
    });
  }

  accountAction(botId: string, action: 'suspend' | 'resume' | 'delete') {
    return this.admin().request('POST', `/bots/${pathSegment(botId, 'botId')}/${action}`, {
      schema: moduleBotSchema,
    });
  }

  authorize(input: z.output<typeof authorizeInputSchema>) {
    return this.admin().request('POST', '/authorize', { body: input, schema: authorizationSchema });
  }

  setBotUserIdHeader(botUserIdHeader: string) {
    return this.admin().request('PUT', '/settings', {
      body: { botUserIdHeader },
      schema: z.object({ botUserIdHeader: z.string() }),
    });
  }

  async attach(
    { moduleChannelId, managerBaseUrl, confirmManagerOrigin, via }: AttachRequest,
    input: AttachInput,
  ) {
    const { acting, modules } = await this.client(moduleChannelId, { managerBaseUrl });
    // The channel's ID and secret go as credentials to the manager URL: only to the origin of
    // the environment they belong to, unless the user confirmed that other origin
    // (docs/decisions.md, "Emulator fidelity and hardening, second pass").
    const home = new URL(acting.baseUrl).origin;
    const target = managerBaseUrl ? new URL(managerBaseUrl).origin : home;
    if (target !== home && confirmManagerOrigin !== target)
      throw new SetupError(
        'managerBaseUrl',
        `is on ${target}, not ${home} where channel ${acting.channelId} belongs: sending its ID and secret there needs your confirmation (confirmManagerOrigin: "${target}")`,
      );
    if (!acting.channelSecret)
      throw new NotConfiguredError('Attach needs the module channel secret: enter it in Settings.');
    return modules.attach(input, {
      channelId: acting.channelId,
      channelSecret: acting.channelSecret,
      via,
    });
  }

  async detach(moduleChannelId: ModuleChannelId, botId: string): Promise<void> {
    await (await this.client(moduleChannelId)).modules.detach(botId);
  }

  async acquire(
    moduleChannelId: ModuleChannelId,
    {
      chatId,
      botId,
      expired,
      ttl,
      botUserIdHeader,
    }: { chatId: string; botId: string; expired?: boolean; ttl?: number; botUserIdHeader?: string },
  ): Promise<void> {
    await (
      await this.client(moduleChannelId, { botUserIdHeader })
    ).modules.acquireControl(chatId, botId, { expired, ...(ttl !== undefined && { ttl }) });
  }

  async release(
    moduleChannelId: ModuleChannelId,
    { chatId, botId, botUserIdHeader }: { chatId: string; botId: string; botUserIdHeader?: string },
  ): Promise<void> {
    await (
      await this.client(moduleChannelId, { botUserIdHeader })
    ).modules.releaseControl(chatId, botId);
  }

  async listBots(moduleChannelId: ModuleChannelId, options: { limit?: number; start?: string }) {
    return (await this.client(moduleChannelId)).modules.listBots(options);
  }
}
