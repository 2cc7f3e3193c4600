// The adapter card's identity, looked at in both window sizes: the station's `sim` adapter (a
// controller with a public address) beside a `tcp:` adapter that is the simulated bench served
// in this process as a Zephyr dongle without one; each row says which address the adapter uses
// on the air and where it came from (docs/decisions.md, "One identity per dongle").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveH4, type H4Server } from '../../src/core/ble/hci/h4-server';
import { SimulatedBench } from '../../src/core/ble/sim/bench';
import {
  atEachSize,
  clippedText,
  expectText,
  FLOW_SIZE,
  nav,
  opStatus,
  shoot,
  useBench,
} from './fixture';

const bench = useBench();

let dongle: SimulatedBench;
let server: H4Server;

beforeAll(async () => {
  dongle = new SimulatedBench({ seed: 3 });
  dongle.addBoard(
    { name: 'Dongle board', address: 'c2:8e:40:00:00:02', advertising: { intervalMs: 20 } },
    'test',
  );
  server = await serveH4(
    dongle,
    { kind: 'tcp', host: '127.0.0.1', port: 0 },
    { address: '00:1a:7d:da:72:02', addressing: 'zephyrStatic' },
  );
});

afterAll(async () => {
  await server?.close();
  dongle?.close();
});

describe('the adapter card’s identity', () => {
  it('shows each adapter’s address and where it came from, in view and unclipped', async () => {
    const { page, pageErrors } = bench();
    await page.setViewportSize(FLOW_SIZE);
    expect(
      await opStatus(page, 'ble:setAdapters', { adapters: ['sim', server.spec], dropLinks: true }),
    ).toBe(200);
    await nav(page, 'BLE bench').click();
    const identity = (spec: string) =>
      page.locator(
        `[data-testid="adapter-row"][data-spec="${spec}"] [data-testid="adapter-identity"]`,
      );
    await expectText(identity(server.spec), 'Identity c0:1a:7d:da:72:02 · static (controller)');
    await expectText(identity('sim'), 'Identity 00:1a:7d:da:71:01 · public');
    await atEachSize(page, async () => {
      await expect(identity(server.spec).isVisible()).resolves.toBe(true);
      expect(await clippedText(page)).toEqual([]);
      await shoot(page, 'adapter-identity');
    });
    expect(pageErrors).toEqual([]);
  });
});
