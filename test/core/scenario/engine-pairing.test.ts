// A dry run that pairs as a phone does, through the engine on the simulated bench, against the
// shipped Zephyr Secure board (LE Secure Connections only, the passkey 246801 on its display):
// the pairing and the Encryption Change are timeline events before anything is read, and a
// pairing that fails ends the connection before any scenario runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rig, type Rig } from '../ble/fixture';
import { startDryRun } from '../../../src/core/scenario/engine';
import type { RunnableSet, TimelineEvent } from '../../../src/core/scenario/schema';
import type { SecurityPolicy } from '../../../src/core/ble/hci/noble-smp';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import { SIM_BOARDS_DIR } from '../../../src/core/ble/sim/board-file';

let r: Rig;
afterEach(() => r.close());

const secure = JSON.parse(readFileSync(join(SIM_BOARDS_DIR, 'zephyr-secure.json'), 'utf8')) as {
  boards: BoardSpecInput[];
};

const readMaker: RunnableSet = {
  autoClose: true,
  suppressionInterval: 0,
  revision: 1,
  scenarios: [
    {
      id: 'maker',
      trigger: { type: 'IMMEDIATE' },
      actions: [{ type: 'GATT_READ', serviceUuid: '180a', characteristicUuid: '2a29' }],
    },
  ],
};

/** The station as the app's windows are: a keyboard for the passkey; this one types `typed`. */
function station(typed: number): SecurityPolicy {
  return {
    options: { io: 'keyboardDisplay', bond: true, mitm: false, sc: true },
    user: {
      displayPasskey: () => undefined,
      enterPasskey: () => Promise.resolve(typed),
      confirmNumber: () => Promise.resolve(true),
    },
  };
}

async function dryRun(typed: number) {
  r = rig(secure.boards, {}, { security: station(typed) });
  const ad = await r.find({ name: 'secure' });
  const events: TimelineEvent[] = [];
  const run = startDryRun({
    central: r.central,
    deviceId: ad.id,
    set: readMaker,
    clock: r.clock,
    cycles: 1,
    pairAsPhone: true,
    onEvent: (e) => events.push(e),
  });
  const outcome = await r.drive(run.done);
  return { events, outcome, kinds: events.map((e) => e.kind) };
}

describe('a dry run that pairs as a phone does', { timeout: 60_000 }, () => {
  it('pairs with Secure Connections, MITM and bonding before the scenarios, and says so', async () => {
    const { events, outcome, kinds } = await dryRun(246_801);
    expect(kinds.slice(0, 5)).toEqual([
      'connecting',
      'connected',
      'paired',
      'encrypted',
      'scenario-start',
    ]);
    const paired = events.find((e) => e.kind === 'paired');
    expect(paired).toMatchObject({
      security: {
        encrypted: true,
        method: 'passkeyEntry',
        key: 'sc',
        authenticated: true,
        keySize: 16,
      },
    });
    expect(paired!.at).toBeGreaterThanOrEqual(paired!.kind === 'paired' ? paired!.startedAt : 0);
    expect(events.find((e) => e.kind === 'encrypted')).toMatchObject({
      security: { encrypted: true, key: 'sc', authenticated: true },
    });
    expect(outcome.results.map((res) => res.resultCode)).toEqual(['SUCCESS']);
  });

  it('a wrong passkey fails the pairing: the connection ends before any scenario runs', async () => {
    const { events, outcome, kinds } = await dryRun(111_111);
    expect(kinds).not.toContain('paired');
    expect(kinds).not.toContain('scenario-start');
    expect(events.find((e) => e.kind === 'pairing-failed')).toMatchObject({
      error: expect.stringMatching(/0x04 confirm value failed/),
    });
    expect(events.find((e) => e.kind === 'disconnected')).toMatchObject({
      by: 'link',
      reason: 'pairing failed',
    });
    expect(outcome.results).toEqual([]);
  });
});
