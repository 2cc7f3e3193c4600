// Scenario result events through the emulator's admin API: each result reaches the channel's
// webhook URL as its own signed envelope, in order, with the device and user the platform would
// name, and every delivery is kept.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorAdminClient } from '../../../../src/core/emulator/admin-client';
import type { Channel } from '../../../../src/core/emulator/channels';
import { startEmulator } from '../../../../src/core/emulator/server';
import {
  SCENARIO_RESULT_KIND,
  scenarioResultEnvelopeSchema,
  type ScenarioResultEnvelope,
} from '../../../../src/core/platform/things/event-schema';
import type { ScenarioResult } from '../../../../src/core/platform/things/scenario-result';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../src/core/webhooks/receiver';
import { verifySignature } from '../../../../src/core/webhooks/signature';
import { harness, useEmulator, type EmulatorHarness } from '../../../helpers/emulator';

const emu = useEmulator();
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let receiver: WebhookReceiver;
beforeAll(async () => {
  // Knows every channel's secret, so a `valid` signature also names the channel that signed.
  receiver = await startWebhookReceiver({ port: 0, secrets: () => emu().emulator.channels() });
});
afterAll(() => receiver.close());

function result(scenarioId: string, overrides: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    scenarioId,
    revision: 3,
    startTime: 1_700_000_000_000,
    endTime: 1_700_000_000_250,
    resultCode: 'SUCCESS',
    actionResults: [{ type: 'void' }, { type: 'binary', data: 'AQI=' }],
    ...overrides,
  };
}

// Each test has its own channel and product; the channel's webhook URL is the receiver.
let channel: Channel;
let productId = '';
beforeEach(async () => {
  const h = emu();
  channel = (await h.admin('POST', '/channels', { name: 'Results' })).body as Channel;
  const product = await h.call(
    'POST',
    '/things/v1/trial/products',
    { name: 'Lamp' },
    channel.channelAccessToken,
  );
  expect(product.status).toBe(200);
  productId = (product.body as { id: string }).id;
  const set = await h.admin('PUT', '/webhooks/urls', {
    channelId: channel.channelId,
    url: `${receiver.url}/webhook/${channel.channelId}`,
  });
  expect(set.status).toBe(200);
});

/** What the receiver got on this test's channel, oldest first. */
function received() {
  return receiver
    .list()
    .filter((w) => w.path === `/webhook/${channel.channelId}`)
    .reverse();
}

async function deliver(body: unknown, h: EmulatorHarness = emu()) {
  return h.admin('POST', '/things/scenario-results', body);
}

async function registerDevice(psdi: string, userId?: string) {
  const res = await emu().admin('POST', '/things/devices', {
    productId,
    productSpecificDeviceId: psdi,
    userId,
  });
  expect(res.status).toBe(201);
  return (res.body as { device: { id: string } }).device.id;
}

function userIdOf(n: number): string {
  return `U${n.toString(16).padStart(32, '0')}`;
}

describe('scenario result events', () => {
  it('deliver one signed envelope per result, in order, naming the registered device and its linked user', async () => {
    const linked = userIdOf(0xa1);
    const deviceId = await registerDevice('board-7', linked);
    const results = [
      result('s-1'),
      result('s-2', { resultCode: 'GATT_ERROR', actionResults: [], errorReason: 'ATT 0x0a' }),
      result('s-3', {
        resultCode: 'BLE_CONNECTION_ERROR',
        actionResults: [{ type: 'void' }],
        bleNotificationPayload: 'Bw==',
      }),
    ];
    const res = await deliver({ productId, productSpecificDeviceId: 'board-7', results });
    expect(res.status).toBe(200);
    const deliveries = res.body as {
      status: string;
      kind: string;
      body: string;
      signature: string;
    }[];
    expect(deliveries.map((d) => [d.status, d.kind])).toEqual(
      results.map(() => ['SUCCESS', SCENARIO_RESULT_KIND]),
    );

    const got = received();
    expect(got).toHaveLength(3);
    const envelopes = got.map((w) => scenarioResultEnvelopeSchema.parse(JSON.parse(w.body)));
    expect(envelopes.map((e) => e.events.map((ev) => ev.things.result.scenarioId))).toEqual([
      ['s-1'],
      ['s-2'],
      ['s-3'],
    ]);
    for (const [i, envelope] of envelopes.entries()) {
      expect(envelope.destination).toBe(channel.channelId);
      const [event] = envelope.events;
      expect(event).toMatchObject({
        type: 'things',
        mode: 'active',
        deliveryContext: { isRedelivery: false },
        source: { type: 'user', userId: linked },
        things: { deviceId, type: 'scenarioResult', result: results[i] },
      });
      expect(event!.webhookEventId).toMatch(/^[0-9A-Z]{26}$/);
      // The receiver saw the bytes the emulator kept.
      expect(got[i]!.body).toBe(deliveries[i]!.body);
    }
    expect(new Set(envelopes.map((e) => e.events[0]!.webhookEventId)).size).toBe(3);
  });

  it('are signed with the channel secret in the usual header, and nothing else verifies them', async () => {
    await deliver({ productId, results: [result('s-1')] });
    const [hit] = received();
    expect(hit).toMatchObject({ signature: 'valid', channelId: channel.channelId, status: 200 });
    expect(verifySignature(hit!.body, channel.channelSecret, hit!.signatureHeader)).toBe(true);
    expect(verifySignature(hit!.body, `${channel.channelSecret}x`, hit!.signatureHeader)).toBe(
      false,
    );
    const other = emu().emulator.channels()[0]!;
    expect(verifySignature(hit!.body, other.channelSecret, hit!.signatureHeader)).toBe(false);
  });

  it('name a stable dry-run device for a board that is not registered, and the given user', async () => {
    const registered = await registerDevice('board-1');
    const userId = userIdOf(0xb2);
    for (const psdi of ['board-2', 'board-2', 'board-3'])
      expect(
        (
          await deliver({
            productId,
            productSpecificDeviceId: psdi,
            userId,
            results: [result(psdi)],
          })
        ).status,
      ).toBe(200);
    await deliver({ productId, userId, results: [result('none')] });
    const events = received().map(
      (w) => scenarioResultEnvelopeSchema.parse(JSON.parse(w.body)).events[0]!,
    );
    const [two, twoAgain, three, none] = events.map((e) => e.things.deviceId);
    expect(registered).toMatch(UUID_V4);
    expect(two).toMatch(UUID_V8);
    expect(twoAgain).toBe(two);
    expect(three).toMatch(UUID_V8);
    expect(three).not.toBe(two);
    expect(none).toMatch(UUID_V8);
    expect(new Set([registered, two, three, none]).size).toBe(4);
    expect(events.every((e) => e.source.userId === userId)).toBe(true);
  });

  it('prefer the given user over the linked one, and fall back to the first user', async () => {
    const linked = userIdOf(0xc3);
    const given = userIdOf(0xc4);
    await registerDevice('linked', linked);
    await registerDevice('unlinked');
    await deliver({
      productId,
      productSpecificDeviceId: 'linked',
      userId: given,
      results: [result('a')],
    });
    await deliver({ productId, productSpecificDeviceId: 'unlinked', results: [result('b')] });
    const users = (await emu().admin('GET', '/users')).body as { userId: string }[];
    const sources = received().map(
      (w) => scenarioResultEnvelopeSchema.parse(JSON.parse(w.body)).events[0]!.source.userId,
    );
    expect(sources).toEqual([given, users[0]!.userId]);
  });

  it('are kept as deliveries of kind things.scenarioResult, and sent through the typed admin client', async () => {
    const client = new EmulatorAdminClient(emu().emulator.adminUrl);
    const sent = await client.deliverScenarioResults({
      productId,
      results: [result('x-1'), result('x-2', { resultCode: 'RUNTIME_ERROR', actionResults: [] })],
    });
    expect(sent.map((d) => d.status)).toEqual(['SUCCESS', 'SUCCESS']);
    const kept = await client.webhookDeliveries({
      channelId: channel.channelId,
      kind: SCENARIO_RESULT_KIND,
    });
    // Newest first.
    expect(kept.map((d) => d.id)).toEqual(sent.map((d) => d.id).reverse());
    const codes = kept.map(
      (d) => (JSON.parse(d.body) as ScenarioResultEnvelope).events[0]!.things.result.resultCode,
    );
    expect(codes).toEqual(['RUNTIME_ERROR', 'SUCCESS']);
    expect(kept.every((d) => verifySignature(d.body, channel.channelSecret, d.signature))).toBe(
      true,
    );
  });

  it('are FAILED deliveries, still kept, when the channel has no webhook URL', async () => {
    await emu().admin('PUT', '/webhooks/urls', { channelId: channel.channelId, url: null });
    const res = await deliver({ productId, results: [result('s-1')] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject([{ status: 'FAILED', url: null, kind: SCENARIO_RESULT_KIND }]);
    expect(received()).toEqual([]);
  });

  it('answer 400 naming each bad field, and send nothing', async () => {
    const cases: [unknown, string][] = [
      [
        { productId, results: [result('s', { resultCode: 'OOPS' as never })] },
        'results[0].resultCode',
      ],
      [{ productId, results: [result('s'), { scenarioId: 's' }] }, 'results[1].revision'],
      [{ productId, results: [] }, 'results'],
      [{ productId, results: Array.from({ length: 101 }, (_, i) => result(`s${i}`)) }, 'results'],
      [{ productId }, 'results'],
      [{ results: [result('s')] }, 'productId'],
      [{ productId, userId: 'nobody', results: [result('s')] }, 'userId'],
      [
        { productId, productSpecificDeviceId: '', results: [result('s')] },
        'productSpecificDeviceId',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await deliver(body);
      expect(res.status, field).toBe(400);
      const { message, details } = res.body as {
        message: string;
        details: { property: string }[];
      };
      expect(message).toContain(`${field}:`);
      expect(details.map((d) => d.property)).toContain(field);
    }
    expect(received()).toEqual([]);
  });

  it('answer 404 for an unknown product', async () => {
    const res = await deliver({ productId: '1', results: [result('s')] });
    expect(res.status).toBe(404);
    expect((res.body as { message: string }).message).toBe('productId: no trial product 1.');
  });
});

describe('scenario result events on an emulator with no users', () => {
  it('name a new Bench user as the source', async () => {
    const fresh = harness(await startEmulator());
    try {
      const [own] = fresh.emulator.channels();
      const product = await fresh.call('POST', '/things/v1/trial/products', { name: 'Fan' });
      const res = await deliver(
        { productId: (product.body as { id: string }).id, results: [result('s')] },
        fresh,
      );
      expect(res.status).toBe(200);
      const users = (await fresh.admin('GET', '/users')).body as {
        userId: string;
        displayName: string;
      }[];
      expect(users).toHaveLength(1);
      expect(users[0]!.displayName).toBe('Bench user');
      const [delivery] = res.body as { body: string; channelId: string }[];
      expect(delivery!.channelId).toBe(own!.channelId);
      const envelope = scenarioResultEnvelopeSchema.parse(JSON.parse(delivery!.body));
      expect(envelope.events[0]!.source.userId).toBe(users[0]!.userId);
    } finally {
      await fresh.emulator.close();
    }
  });
});
