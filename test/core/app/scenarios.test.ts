// Scenario dry runs through the app's contract: the simulated bench in the BLE process, the
// saved set and the editor's draft, the timeline as events, runs in the audit log, results in
// the emulator's webhook log and at a bot's receiver with valid signatures, field-named errors.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScannedDevice } from '../../../src/core/usecases/bench/bench-schema';
import {
  SCENARIO_RESULT_KIND,
  scenarioResultEnvelopeSchema,
} from '../../../src/core/platform/things/event-schema';
import type { ScenarioRunSummary, TimelineEvent } from '../../../src/core/scenario/schema';
import { scanFor, useApp } from '../../helpers/app';
import { REFUSAL, refuseFirstScenarioEnd } from '../../helpers/refused-log-write';

const get = useApp('app-scenarios');
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);
const fails = (name: string, input: unknown) => get().fails(name, input);

const SENSOR = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';

const blink = {
  autoClose: true,
  suppressionInterval: 200,
  scenarios: [
    {
      trigger: { type: 'IMMEDIATE' },
      actions: [
        { type: 'GATT_WRITE', serviceUuid: SENSOR, characteristicUuid: LED, data: 'AQ==' },
        { type: 'SLEEP', sleepMillis: 50 },
        { type: 'GATT_READ', serviceUuid: SENSOR, characteristicUuid: LED },
      ],
    },
  ],
};

let board: ScannedDevice | undefined;
async function sensor(): Promise<ScannedDevice> {
  board ??= await scanFor(get(), 'DB Sensor');
  return board;
}

async function product(name: string): Promise<{ id: string; channelId: number }> {
  return ok('things:createTrialProduct', { name });
}

/** Starts a run and collects its events (kept in order, live) until its final record arrives. */
async function run(input: Record<string, unknown>) {
  const byRun = new Map<number, TimelineEvent[]>();
  const finals = new Map<number, ScenarioRunSummary>();
  const offEvents = get().app.subscribe('scenarios:event', (p) => {
    const { runId, event } = p as { runId: number; event: TimelineEvent };
    byRun.set(runId, [...(byRun.get(runId) ?? []), event]);
  });
  const offRuns = get().app.subscribe('scenarios:run', (p) => {
    const summary = p as ScenarioRunSummary;
    if (summary.status === 'finished') finals.set(summary.id, summary);
  });
  const { run: started } = await ok<{ run: ScenarioRunSummary }>('scenarios:start', input);
  const finished = (async () => {
    while (!finals.has(started.id)) await new Promise((r) => setTimeout(r, 20));
    offEvents();
    offRuns();
    return finals.get(started.id) as ScenarioRunSummary;
  })();
  return {
    started,
    get events() {
      return byRun.get(started.id) ?? [];
    },
    finished,
  };
}

describe('scenario dry runs through the contract', () => {
  it('reads the board GATT table that the editor lints against', async () => {
    const { id } = await sensor();
    const table = await ok<{ mtu: number; services: { uuid: string }[] }>('scenarios:readBoard', {
      deviceId: id,
    });
    expect(table.mtu).toBe(185);
    expect(table.services.map((s) => s.uuid)).toContain(SENSOR.replaceAll('-', ''));
  });

  it('runs a draft for 2 cycles, keeps the run, and sends each result to the emulator log when asked', async () => {
    const { id: productId } = await product('Dry-run lamp');
    const { id: deviceId } = await sensor();
    const dry = await run({
      productId,
      deviceId,
      boardName: 'DB Sensor',
      set: { source: 'draft', draft: blink },
      cycles: 2,
      delivery: { mode: 'emulator' },
    });
    const { started, finished } = dry;
    expect(started).toMatchObject({ status: 'running', setSource: 'draft', revision: 0 });
    const summary = await finished;
    const events = dry.events;
    expect(summary).toMatchObject({ stopReason: 'cycles', results: 2, failures: 0 });
    const results = events.flatMap((e) => (e.kind === 'scenario-end' ? [e.result] : []));
    expect(results).toEqual([
      expect.objectContaining({
        scenarioId: 'draft-1',
        revision: 0,
        resultCode: 'SUCCESS',
        actionResults: [{ type: 'void' }, { type: 'void' }, { type: 'binary', data: 'AQ==' }],
      }),
      expect.objectContaining({ scenarioId: 'draft-1', resultCode: 'SUCCESS' }),
    ]);
    expect(
      events.filter((e) => e.kind === 'disconnected').map((e) => e.kind === 'disconnected' && e.by),
    ).toEqual(['autoClose', 'autoClose']);

    const kept = await ok<{ run: ScenarioRunSummary; events: TimelineEvent[] }>(
      'scenarios:getRun',
      {
        runId: started.id,
      },
    );
    expect(kept.events).toEqual(events);
    const list = await ok<{ items: ScenarioRunSummary[] }>('scenarios:listRuns', { productId });
    expect(list.items.map((r) => r.id)).toEqual([started.id]);

    const deliveries = await ok<{ body: string }[]>('webhooks:listDeliveries', {
      kind: SCENARIO_RESULT_KIND,
    });
    const delivered = deliveries
      .map((d) => scenarioResultEnvelopeSchema.parse(JSON.parse(d.body)))
      .filter((e) => (e.events[0]?.things.result.startTime ?? 0) >= started.startedAt);
    expect(delivered.map((e) => e.events[0]?.things.result)).toEqual(
      expect.arrayContaining(results),
    );
  });

  it('delivers straight to a bot webhook URL, signed with the channel secret', async () => {
    const { id: productId, channelId } = await product('Direct delivery');
    const { id: deviceId } = await sensor();
    await ok('webhooks:clearReceived');
    const { url } = await ok<{ url: string }>('webhooks:getReceiver');
    const { finished } = await run({
      productId,
      deviceId,
      set: { source: 'draft', draft: blink },
      cycles: 1,
      delivery: { mode: 'webhook', url },
    });
    await finished;
    const { received } = await ok<{
      received: { signature: string; channelId?: string; body: string }[];
    }>('webhooks:getReceiver');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ signature: 'valid', channelId: String(channelId) });
    const envelope = scenarioResultEnvelopeSchema.parse(JSON.parse(received[0]!.body));
    expect(envelope.destination).toBe(String(channelId));
    expect(envelope.events[0]?.things).toMatchObject({
      type: 'scenarioResult',
      result: { scenarioId: 'draft-1', resultCode: 'SUCCESS' },
    });
  });

  it('reports a timeline batch the audit log refuses, and the run carries on to its finish', async () => {
    const { id: productId } = await product('Refused batch');
    const { id: deviceId } = await sensor();
    await ok('scenarios:listRuns', { productId });
    const allow = refuseFirstScenarioEnd(join(get().dataDir, 'audit.sqlite'));
    try {
      const dry = await run({
        productId,
        deviceId,
        set: { source: 'draft', draft: blink },
        cycles: 2,
      });
      const summary = await dry.finished;
      const reported = dry.events.filter((e) => e.kind === 'error');
      expect(reported).toEqual([
        expect.objectContaining({
          message: expect.stringContaining('could not be written to the audit log'),
        }),
      ]);
      expect(reported[0]).toMatchObject({ message: expect.stringContaining(REFUSAL) });
      // Run 1's batch is missing from the log; run 2's batch and the finish are in it.
      expect(summary).toMatchObject({ status: 'finished', stopReason: 'cycles', results: 1 });
      const kept = await ok<{ events: TimelineEvent[] }>('scenarios:getRun', {
        runId: dry.started.id,
      });
      expect(kept.events.flatMap((e) => (e.kind === 'scenario-end' ? [e.run] : []))).toEqual([2]);
      expect(kept.events.at(-1)).toMatchObject({ kind: 'stopped', reason: 'cycles' });
    } finally {
      allow();
    }
  });

  it('runs the saved set, and stops a run mid-SLEEP on request', async () => {
    const { id: productId } = await product('Saved set');
    const { id: deviceId } = await sensor();
    const missing = await fails('scenarios:start', {
      productId,
      deviceId,
      set: { source: 'saved' },
    });
    expect(missing.fields?.[0]?.field).toBe('set.source');

    const saved = await ok<{ revision: number; scenarios: { id: string }[] }>(
      'things:putScenarioSet',
      {
        productId,
        scenarioSet: {
          autoClose: false,
          suppressionInterval: 0,
          scenarios: [
            { trigger: { type: 'IMMEDIATE' }, actions: [{ type: 'SLEEP', sleepMillis: 60_000 }] },
          ],
        },
      },
    );
    const dry = await run({ productId, deviceId, set: { source: 'saved' } });
    const { started, finished } = dry;
    expect(started.revision).toBe(saved.revision);
    while (!dry.events.some((e) => e.kind === 'action-start'))
      await new Promise((r) => setTimeout(r, 20));
    const busy = await fails('scenarios:start', { productId, deviceId, set: { source: 'saved' } });
    expect(busy.fields?.[0]?.field).toBe('deviceId');
    const stopped = await ok<ScenarioRunSummary>('scenarios:stop', { runId: started.id });
    expect(stopped).toMatchObject({ status: 'finished', stopReason: 'operator', results: 0 });
    await finished;
    expect(dry.events.map((e) => e.kind).slice(-3)).toEqual([
      'scenario-cancelled',
      'disconnected',
      'stopped',
    ]);
    expect(dry.events.find((e) => e.kind === 'scenario-start')).toMatchObject({
      scenarioId: saved.scenarios[0]?.id,
    });
  });

  it('keeps results in the app by default: nothing is delivered, nothing fails', async () => {
    const { id: productId } = await product('Kept in the app');
    const { id: deviceId } = await sensor();
    const before = await ok<{ id: number }[]>('webhooks:listDeliveries', {
      kind: SCENARIO_RESULT_KIND,
    });
    const dry = await run({
      productId,
      deviceId,
      set: { source: 'draft', draft: blink },
      cycles: 2,
    });
    const summary = await dry.finished;
    expect(summary).toMatchObject({ stopReason: 'cycles', results: 2, failures: 0 });
    expect(dry.events.filter((e) => e.kind === 'error')).toEqual([]);
    const kept = await ok<{ events: TimelineEvent[] }>('scenarios:getRun', {
      runId: dry.started.id,
    });
    expect(kept.events.filter((e) => e.kind === 'scenario-end')).toHaveLength(2);
    const after = await ok<{ id: number }[]>('webhooks:listDeliveries', {
      kind: SCENARIO_RESULT_KIND,
    });
    expect(after.map((d) => d.id)).toEqual(before.map((d) => d.id));
  });

  it("names the failing action's characteristic as the bench does and numbers it as the form does", async () => {
    const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
    const { id: productId } = await product('Named failures');
    const { id: deviceId } = await sensor();
    const writeTemperature = {
      autoClose: true,
      suppressionInterval: 200,
      scenarios: [
        {
          trigger: { type: 'IMMEDIATE' },
          actions: [
            { type: 'SLEEP', sleepMillis: 10 },
            { type: 'GATT_READ', serviceUuid: SENSOR, characteristicUuid: LED },
            {
              type: 'GATT_WRITE',
              serviceUuid: SENSOR,
              characteristicUuid: TEMPERATURE,
              data: 'AQ==',
            },
          ],
        },
      ],
    };
    const failure = async () => {
      const dry = await run({
        productId,
        deviceId,
        set: { source: 'draft', draft: writeTemperature },
        cycles: 1,
      });
      await dry.finished;
      const end = dry.events.find((e) => e.kind === 'scenario-end');
      const failed = dry.events.find((e) => e.kind === 'action' && e.error !== undefined);
      return {
        reason: end?.kind === 'scenario-end' ? end.result.errorReason : undefined,
        error: failed?.kind === 'action' ? failed.error : undefined,
      };
    };
    // The board file's name, then the product's own name for it.
    const byBoard = await failure();
    expect(byBoard.reason).toBe(
      `action 3 GATT_WRITE: Temperature (${TEMPERATURE}) does not allow write (it allows read, notify)`,
    );
    expect(byBoard.error).toContain(`Temperature (${TEMPERATURE})`);
    await ok('names:setName', { scope: productId, uuid: TEMPERATURE, name: 'Probe °C' });
    expect((await failure()).reason).toBe(
      `action 3 GATT_WRITE: Probe °C (${TEMPERATURE}) does not allow write (it allows read, notify)`,
    );
  });

  it('refuses a count of connections the set can never reach, and runs it for a duration', async () => {
    const { id: productId } = await product('Never closes');
    const { id: deviceId } = await sensor();
    const draft = { ...blink, autoClose: false, suppressionInterval: 0 };
    const refused = await fails('scenarios:start', {
      productId,
      deviceId,
      set: { source: 'draft', draft },
      cycles: 3,
    });
    expect(refused.fields).toEqual([
      {
        field: 'cycles',
        message: expect.stringMatching(
          /can never reach 3 connections: with autoClose false the client never closes the link.*run for a duration instead/,
        ),
      },
    ]);
    const list = await ok<{ items: unknown[] }>('scenarios:listRuns', { productId });
    expect(list.items).toEqual([]);

    const dry = await run({
      productId,
      deviceId,
      set: { source: 'draft', draft },
      durationMs: 1_500,
    });
    const summary = await dry.finished;
    expect(summary).toMatchObject({ stopReason: 'duration', results: 1, failures: 0 });
    expect(summary.endedAt! - summary.startedAt).toBeGreaterThanOrEqual(1_500);
    expect(summary.endedAt! - summary.startedAt).toBeLessThan(5_000);
    expect(dry.events.at(-1)).toMatchObject({
      kind: 'stopped',
      reason: 'duration',
      durationMs: 1_500,
    });
    // The one link was closed by the stop, not left open.
    expect(dry.events.filter((e) => e.kind === 'disconnected')).toEqual([
      expect.objectContaining({ by: 'stop' }),
    ]);
  });

  it('names the field of bad input', async () => {
    const empty = await fails('scenarios:start', {
      productId: 'x',
      deviceId: ' ',
      set: { source: 'saved' },
    });
    expect(empty.fields?.map((f) => f.field)).toEqual(['deviceId']);
    const url = await fails('scenarios:start', {
      productId: 'x',
      deviceId: 'y',
      set: { source: 'saved' },
      delivery: { mode: 'webhook', url: 'ftp://bot' },
    });
    expect(url.fields?.map((f) => f.field)).toEqual(['delivery.url']);
    const draft = await fails('scenarios:start', {
      productId: 'x',
      deviceId: 'y',
      set: { source: 'draft', draft: { ...blink, suppressionInterval: -1 } },
    });
    expect(draft.fields?.map((f) => f.field)).toEqual(['set.draft.suppressionInterval']);
    const product = await fails('scenarios:start', {
      productId: 'nope',
      deviceId: 'y',
      set: { source: 'saved' },
    });
    expect(product.fields?.map((f) => f.field)).toEqual(['productId']);
  });
  it('on another environment, refuses the emulator log and delivers to a bot, signed with its secret', async () => {
    const { url: emulatorUrl } = await ok<{ url: string }>('emulator:getState');
    const created = await fetch(`${emulatorUrl}/__admin/channels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Other channel' }),
    });
    const channel = (await created.json()) as {
      channelId: string;
      channelAccessToken: string;
      channelSecret: string;
    };
    const env = await ok<{ id: string }>('settings:saveEnvironment', {
      name: 'Another channel',
      baseUrl: `${emulatorUrl}/`,
      ...channel,
    });
    await ok('settings:selectEnvironment', { id: env.id });
    const { id: productId } = await product('On another channel');
    const { id: deviceId } = await sensor();
    const draft = { source: 'draft', draft: blink };

    const refused = await fails('scenarios:start', {
      productId,
      deviceId,
      set: draft,
      delivery: { mode: 'emulator' },
    });
    expect(refused.fields?.map((f) => f.field)).toEqual(['delivery']);

    await ok('webhooks:clearReceived');
    const { url } = await ok<{ url: string }>('webhooks:getReceiver');
    const { finished } = await run({
      productId,
      deviceId,
      set: draft,
      cycles: 1,
      delivery: { mode: 'webhook', url },
    });
    await finished;
    const { received } = await ok<{ received: { signature: string; channelId?: string }[] }>(
      'webhooks:getReceiver',
    );
    expect(received).toEqual([
      expect.objectContaining({ signature: 'valid', channelId: channel.channelId }),
    ]);
  });
});
