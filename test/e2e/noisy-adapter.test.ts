// The adapter card on a noisy line: the bench's adapter is a `tcp:` H4 controller (the simulated
// bench served in this process) reached through a relay that inserts random bytes between its
// packets; the card says, in words, that the stream was corrupt and how many bytes were dropped
// (docs/decisions.md, "A noisy serial line"). Its words are checked once; cut text and the
// picture at both window sizes (atEachSize).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveH4, type H4Server } from '../../src/core/ble/hci/h4-server';
import { SimulatedBench } from '../../src/core/ble/sim/bench';
import { lineRelay, type LineRelay } from '../helpers/h4-relay';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  nav,
  shoot,
  useBench,
  opStatus,
} from './fixture';

const bench = useBench();

let line: SimulatedBench;
let server: H4Server;
let relay: LineRelay;

beforeAll(async () => {
  line = new SimulatedBench({ seed: 5 });
  line.addBoard(
    { name: 'Noisy board', address: 'c2:8e:40:00:00:01', advertising: { intervalMs: 20 } },
    'test',
  );
  server = await serveH4(line, { kind: 'tcp', host: '127.0.0.1', port: 0 });
  // One controller packet in ten carries noise, once the set-up is through.
  relay = await lineRelay(server.spec, 3, { insert: 0.1, after: 12 });
});

afterAll(async () => {
  await relay?.close();
  await server?.close();
  line?.close();
});

describe('the adapter card on a noisy line', () => {
  it('says the HCI stream was corrupt, how many bytes were dropped, and why it may be', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    expect(
      await opStatus(page, 'ble:setAdapters', { adapters: [relay.spec], dropLinks: true }),
    ).toBe(200);
    await nav(page, 'BLE bench').click();
    const row = page.locator(`[data-testid="adapter-row"][data-spec="${relay.spec}"]`);
    const guidance = row.locator('.ble-guidance');
    await expectText(guidance, 'resynced (wrong baud rate? noise?)');
    expect(await guidance.textContent()).toMatch(
      /^the HCI stream from 127\.0\.0\.1:\d+ was corrupt: \d+ bytes dropped, resynced \(wrong baud rate\? noise\?\)\.$/,
    );
    expect(relay.done).toContain('insert');
    await expect(guidance.isVisible()).resolves.toBe(true);
    await atEachSize(page, async () => {
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'noisy-adapter');
    });
    expect(pageErrors).toEqual([]);
  });
});
