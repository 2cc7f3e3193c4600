// The station's identity through real noble over the simulated controller: a controller with a
// public address, a Zephyr dongle with a static one, and one with neither whose generated address
// is kept. The board's Security Manager computes its confirm values with the initiator address it
// saw on the air, so pairing only succeeds when the station's SMP used that same address and type;
// a bonding station hands the board its identity address and IRK, which the board's bond keeps.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { board, rig, SENSOR_SERVICE, type Rig } from './fixture';
import { AdapterIdentityFile } from '../../../src/core/ble/adapter-identity-store';
import { BondStore } from '../../../src/core/ble/security-manager/bond-store';
import type { AdapterProfileInput } from '../../../src/core/ble/sim/adapter-profile';
import type { SimBoard } from '../../../src/core/ble/sim/board';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const SECRET = 'a3c80009-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** A board that pairs (SC, or legacy) and bonds, so it keeps the station's address. */
const bonding = (mode: 'sc' | 'legacy') =>
  board({
    name: 'Keeper',
    address: 'd6:3a:41:00:66:01',
    gatt: [
      {
        uuid: SENSOR_SERVICE,
        characteristics: [
          {
            uuid: SECRET,
            properties: ['read'],
            permissions: { read: 'encrypted' },
            value: { utf8: 'sesame' },
            maxLength: 20,
          },
        ],
      },
    ],
    security: { mode },
  });

async function pairedWith(
  adapter: AdapterProfileInput,
  mode: 'sc' | 'legacy',
  identities?: AdapterIdentityFile,
) {
  const bonds = BondStore.inMemory('test');
  r = rig([bonding(mode)], {}, { adapter, identities, bonds });
  // Keeping a generated identity writes the data folder: real time, which the bench's clock
  // would otherwise outrun while the adapter is still settling.
  const central = r.central;
  await vi.waitFor(() => expect(central.state()).toBe('poweredOn'));
  const ad = await r.find({ name: 'keeper' });
  const link = await r.drive(r.central.connect(ad.id));
  const info = await r.drive(link.requestLink!({ kind: 'pair' }));
  // A legacy board hands out its keys on the link once it is encrypted.
  await r.clock.advance(500);
  const identity = r.central.identity();
  const sim = r.bench.board(r.bench.boards()[0]!.id)!;
  return { identity, info, sim, bonds };
}

/**
 * The station handed out its identity as a phone does: the board's bond table names it by its
 * identity address, with the IRK the station keeps for that identity.
 */
function handedOut(
  sim: SimBoard,
  bonds: BondStore,
  station: { address: string; type: 'public' | 'random' },
) {
  expect(sim.view().bonds).toEqual([{ central: station.address, identity: station }]);
  const own = bonds.lookup(() => station).identity!()!;
  expect(own.identityAddress).toEqual(station);
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  expect(hex(sim.bondWith(station.address)!.central!.irk)).toBe(hex(own.irk));
}

describe('one identity per dongle on the simulated bench', () => {
  it('a controller with a public address introduces itself with it', async () => {
    const { identity, info, sim, bonds } = await pairedWith({}, 'sc');
    expect(identity).toEqual({ address: '00:1a:7d:da:71:01', type: 'public', source: 'public' });
    expect(info.security).toMatchObject({ encrypted: true, key: 'sc', bonded: true });
    expect(sim.bondWith('00:1a:7d:da:71:01')).toBeDefined();
    expect(bonds.list()).toMatchObject([{ station: '00:1a:7d:da:71:01', stationType: 'public' }]);
    handedOut(sim, bonds, { address: '00:1a:7d:da:71:01', type: 'public' });
  });

  it.each(['sc', 'legacy'] as const)(
    'a Zephyr dongle without a public address uses its static one; %s pairing computes with it on both sides',
    async (mode) => {
      const { identity, info, sim, bonds } = await pairedWith({ addressing: 'zephyrStatic' }, mode);
      expect(identity).toEqual({
        address: 'c0:1a:7d:da:71:01',
        type: 'random',
        source: 'controllerStatic',
      });
      expect(info.security).toMatchObject({ encrypted: true, key: mode, bonded: true });
      // The board saw the static address on the air, and bonded with it, not with zeros.
      expect(sim.bondWith('c0:1a:7d:da:71:01')).toBeDefined();
      expect(sim.bondWith('00:00:00:00:00:00')).toBeUndefined();
      expect(bonds.list()).toMatchObject([{ station: 'c0:1a:7d:da:71:01', stationType: 'random' }]);
      handedOut(sim, bonds, { address: 'c0:1a:7d:da:71:01', type: 'random' });
    },
  );

  it('a controller with neither gets a generated address, kept in the data folder for the next opening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'station-identity-'));
    const first = await pairedWith(
      { addressing: 'none' },
      'sc',
      await AdapterIdentityFile.open(dir),
    );
    expect(first.identity).toMatchObject({ type: 'random', source: 'generatedKept' });
    const address = first.identity!.address;
    expect(first.sim.bondWith(address)).toBeDefined();
    await r!.close();
    r = undefined;
    const again = await pairedWith(
      { addressing: 'none' },
      'sc',
      await AdapterIdentityFile.open(dir),
    );
    expect(again.identity).toEqual(first.identity);
    expect(again.sim.bondWith(address)).toBeDefined();
  });
});
