// Scenario result events: one scenario run's result in the envelope the platform sends a bot.
// The emulator's admin API sends them through its dispatcher; the app builds the same envelope
// to deliver a dry run's results straight to a bot.
import { createHash } from 'node:crypto';
import type { ScenarioResult } from './scenario-result';
import { webhookEventId } from '../../webhooks/event-id';
import type { ScenarioResultEnvelope } from './event-schema';

export function scenarioResultEnvelope(input: {
  destination: string;
  deviceId: string;
  userId: string;
  result: ScenarioResult;
  now: number;
}): ScenarioResultEnvelope {
  return {
    destination: input.destination,
    events: [
      {
        type: 'things',
        webhookEventId: webhookEventId(input.now),
        timestamp: input.now,
        mode: 'active',
        deliveryContext: { isRedelivery: false },
        source: { type: 'user', userId: input.userId },
        things: { deviceId: input.deviceId, type: 'scenarioResult', result: input.result },
      },
    ],
  };
}

/**
 * The device ID for a board the platform has no device for (a dry run before any link): a
 * UUID, so a bot's code takes it like a real one, stable for the same product and PSDI, and
 * version 8 (RFC 9562, custom) rather than the version 4 of registered devices, so it can be told
 * apart. SHA-256 of `productId`, a NUL, and the PSDI (empty when there is none).
 */
export function dryRunDeviceId(productId: string, productSpecificDeviceId = ''): string {
  const hex = createHash('sha256')
    .update(`${productId}\0${productSpecificDeviceId}`)
    .digest('hex')
    .slice(0, 32)
    .split('');
  hex[12] = '8';
  // RFC 9562 variant: the top two bits of this digit are 10.
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
