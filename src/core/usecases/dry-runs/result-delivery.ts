// Where a dry run's results go. To the embedded emulator: it signs each with the product's
// channel secret, sends it to the channel's webhook URL and keeps it in its webhook log. Or
// straight to a bot's webhook URL, signed here with the active channel's secret, in the same
// envelope (docs/decisions.md, "Scenario result events").
import type { EmulatorAdminClient } from '../../emulator/admin-client';
import { dryRunDeviceId, scenarioResultEnvelope } from '../../platform/things/events';
import type { TrialProduct } from '../../platform/things/schema';
import { postSigned } from '../../webhooks/send';
import { SetupError } from '../errors';
import type { DeliverResult } from './dry-run';

/** The `source.userId` of results sent straight to a bot: a dry run has no linked user. */
const DRY_RUN_USER_ID = `U${'0'.repeat(32)}`;

export function deliverToEmulator(
  admin: EmulatorAdminClient,
  product: TrialProduct,
  psdi: string | undefined,
): DeliverResult {
  return async (result) => {
    // A delivery that failed for want of a webhook URL is in the emulator's log, as on the
    // platform; only a result the emulator did not take is a problem for the timeline.
    await admin.deliverScenarioResults({
      productId: product.id,
      productSpecificDeviceId: psdi,
      results: [result],
    });
    return undefined;
  };
}

export function deliverToWebhook(
  url: string,
  channelSecret: string | undefined,
  product: TrialProduct,
  psdi: string | undefined,
): DeliverResult {
  if (!channelSecret)
    throw new SetupError(
      'delivery.url',
      'the active environment has no channel secret to sign results with: add it in Settings',
    );
  const deviceId = dryRunDeviceId(product.id, psdi);
  return async (result) => {
    const envelope = scenarioResultEnvelope({
      destination: String(product.channelId),
      deviceId,
      userId: DRY_RUN_USER_ID,
      result,
      now: Date.now(),
    });
    const sent = await postSigned(url, JSON.stringify(envelope), channelSecret);
    return sent.status === 'SUCCESS' ? undefined : sent.error;
  };
}
