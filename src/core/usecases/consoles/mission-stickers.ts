// Mission stickers: the send on the active environment; the rest is the embedded emulator's
// admin API for the state that decides what the send answers.
import { z } from 'zod';
import { MissionStickersClient } from '../../platform/mission-stickers/client';
import {
  missionStateSchema,
  stickerSetSchema,
  type stickerSetInputSchema,
  type stickerUserInputSchema,
} from '../../platform/mission-stickers/schema';
import { pathSegment } from '../../platform/url-text';
import { areaAdmin, type ConsoleSetup } from './console-setup';

export class MissionStickersConsole {
  constructor(private readonly setup: ConsoleSetup) {}

  private admin() {
    return areaAdmin(this.setup, 'mission-stickers');
  }

  async send(to: string, productId: string): Promise<void> {
    const client = new MissionStickersClient(await this.setup.envs.activeTarget(), this.setup.http);
    await client.send(to, productId);
  }

  emulatorState() {
    return this.admin().request('GET', '/state', { schema: missionStateSchema });
  }

  putSet(productId: string, set: z.output<typeof stickerSetInputSchema>) {
    return this.admin().request('PUT', `/sets/${productId}`, {
      body: set,
      schema: stickerSetSchema,
    });
  }

  setPermission(channelId: string, allowed: boolean) {
    return this.admin().request('PUT', `/permissions/${pathSegment(channelId, 'channelId')}`, {
      body: { allowed },
      schema: z.object({ channelId: z.string(), allowed: z.boolean() }),
    });
  }

  setUser(userId: string, profile: z.output<typeof stickerUserInputSchema>) {
    return this.admin().request('PUT', `/users/${pathSegment(userId, 'userId')}`, {
      body: profile,
      schema: z.object({ userId: z.string(), country: z.string(), appVersion: z.string() }),
    });
  }
}
