// The app's webhook receiver: it verifies with every channel secret the app knows (the embedded
// emulator's channels and the active environment's), so a bot's webhook can point at the app.
import type { RunningEmulator } from '../../emulator/server';
import {
  startWebhookReceiver,
  type ChannelSecret,
  type WebhookReceiver,
} from '../../webhooks/receiver';
import type { Environments } from '../environments';

/** Tried first, so a tunnel or a bookmarked URL keeps working across restarts. */
const PREFERRED_RECEIVER_PORT = 4781;
/** The path the app suggests; the receiver takes any. */
const RECEIVER_PATH = '/webhook';

export interface AppReceiver {
  receiver: WebhookReceiver;
  /** The URL the app suggests for a channel's webhook. */
  url: string;
}

export async function startAppReceiver(options: {
  envs: Environments;
  /** The embedded emulator, if it started. */
  emulator: RunningEmulator | undefined;
  /** Taken when free, else any free port; 0: any free port. */
  port?: number;
}): Promise<AppReceiver> {
  const { envs, emulator } = options;
  const receiver = await startWebhookReceiver({
    port: options.port ?? PREFERRED_RECEIVER_PORT,
    secrets: async () => {
      // Emulator events carry its virtual clock's time, which may be moved far ahead.
      const secrets: ChannelSecret[] = emulator
        ? emulator.channels().map((c) => ({
            channelId: c.channelId,
            channelSecret: c.channelSecret,
            now: () => emulator.ctx.clock.now(),
          }))
        : [];
      const active = await envs.activeChannel().catch(() => undefined);
      if (active?.channelSecret)
        secrets.push({ channelId: active.channelId, channelSecret: active.channelSecret });
      return secrets;
    },
  });
  return { receiver, url: receiver.url + RECEIVER_PATH };
}
