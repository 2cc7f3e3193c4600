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
import { BondStore } from '../../../src/core/ble/security-manager/bond-store';

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
  return runOnce(1);
}

/** One dry run on the rig's secure board, pairing as a phone does. */
async function runOnce(cycles: number) {
  const ad = await r.find({ name: 'secure' });
  const events: TimelineEvent[] = [];
  const run = startDryRun({
    central: r.central,
    deviceId: ad.id,
    set: readMaker,
    clock: r.clock,
    cycles,
    pairAsPhone: true,
    onEvent: (e) => events.push(e),
  });
  const outcome = await r.drive(run.done);
  return { events, outcome, kinds: events.map((e) => e.kind) };
}

/** A station keeping its bonds in `bonds`, its SMP PDUs (as `direction:hex`) in `pdus`. */
function bondingRig(bonds: BondStore, policy: Partial<SecurityPolicy['options']> = {}) {
  const pdus: string[] = [];
  const typed: number[] = [];
  const security = station(246_801);
  security.options = { ...security.options, ...policy };
  const enter = security.user.enterPasskey;
  security.user = {
    ...security.user,
    enterPasskey: () => {
      typed.push(246_801);
      return enter();
    },
  };
  r = rig(
    secure.boards,
    {},
    {
      security,
      bonds,
      trace: (direction, packet) => {
        const p = Buffer.from(packet);
        if (p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006)
          pdus.push(`${direction}:${p.subarray(9).toString('hex')}`);
      },
    },
  );
  return { pdus, typed };
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

describe(
  'a dry run that pairs as a phone does, on a board bonded with the station',
  { timeout: 90_000 },
  () => {
    it('pairs on the first connection and encrypts with the bond on the next: no pairing, no pairing PDU', async () => {
      const bonds = BondStore.inMemory('test');
      const { pdus, typed } = bondingRig(bonds);
      const { events, kinds, outcome } = await runOnce(2);
      const linkKinds = kinds.filter((k) => ['connected', 'paired', 'encrypted'].includes(k));
      expect(linkKinds).toEqual(['connected', 'paired', 'encrypted', 'connected', 'encrypted']);
      expect(typed).toEqual([246_801]);
      expect(bonds.list()).toHaveLength(1);
      const [, second] = events.filter((e) => e.kind === 'encrypted');
      expect(second).toMatchObject({
        security: { key: 'sc', authenticated: true, bonded: true, fromBond: true },
      });
      // One pairing: a single Pairing Request in the whole run, none on the second link.
      expect(pdus.filter((pdu) => pdu.startsWith('sent:01'))).toHaveLength(1);
      expect(outcome.results.map((res) => res.resultCode)).toEqual(['SUCCESS', 'SUCCESS']);
    });

    it('a board that lost the bond fails the run in words: forget the bond and pair again', async () => {
      const bonds = BondStore.inMemory('test');
      const { pdus } = bondingRig(bonds);
      await runOnce(1);
      r.bench.setFaults('e82b7c002001', { forgetBonds: true });
      pdus.length = 0;
      const { events, kinds } = await runOnce(1);
      expect(kinds).not.toContain('paired');
      expect(kinds).not.toContain('scenario-start');
      expect(events.find((e) => e.kind === 'pairing-failed')).toMatchObject({
        error: expect.stringMatching(
          /^encryption refused: PIN or key missing \(0x06\) — the board lost its bond with this station: forget the bond and pair again$/,
        ),
      });
      // The station did not pair again by itself.
      expect(pdus).toEqual([]);
    });

    it('a station that does not bond asks for none (Bonding_Flags 00) and keeps nothing', async () => {
      const bonds = BondStore.inMemory('test');
      const { pdus } = bondingRig(bonds, { bond: false });
      const { events, outcome } = await runOnce(1);
      const request = Buffer.from(pdus.find((pdu) => pdu.startsWith('sent:01'))!.slice(5), 'hex');
      // AuthReq (octet 3): Bonding_Flags in its two low bits; MITM and SC still asked.
      expect(request[3]! & 0x03).toBe(0);
      expect(request[3]! & 0x0c).toBe(0x0c);
      expect(events.find((e) => e.kind === 'paired')).toMatchObject({
        security: { encrypted: true, bonded: false },
      });
      expect(bonds.list()).toEqual([]);
      expect(outcome.results.map((res) => res.resultCode)).toEqual(['SUCCESS']);
    });
  },
);
