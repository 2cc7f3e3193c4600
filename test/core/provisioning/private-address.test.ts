// A board with privacy comes back from its reboot under a new resolvable private address: the
// bond made during provisioning follows it by its identity, which the record keeps; without a
// bond the run stops before a PSDI is reserved, saying why (simulated bench, real noble).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Advertisement } from '../../../src/core/ble/port';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';
import { openBonds } from '../../helpers/open-bonds';

import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';
import { readBackPsdi } from '../../../src/core/provisioning/verify';
import { provisionBoard } from '../../../src/core/provisioning/workflow';
import { blankBoard, failure, FAST, PRODUCT, rig, sequence, V1, type Rig } from './fixture';

let r: Rig | undefined;
afterEach(() => r?.close());

const IDENTITY = 'c2:8e:20:00:00:01';
const privateBoard = () => blankBoard(1, { security: { privacy: { rotateSeconds: 900 } } });

/** The board's first advertisement with `service`, found by name: its address is private. */
async function adOf(rig: Rig, service: string): Promise<Advertisement> {
  let found: (ad: Advertisement) => void = () => {};
  const seen = new Promise<Advertisement>((resolve) => (found = resolve));
  const scan = await rig.central.startScan({ serviceUuids: [service] }, (ad) => {
    if (ad.localName === 'DB Test 1') found(ad);
  });
  try {
    return await seen;
  } finally {
    await scan.stop();
  }
}

const run = (rig: Rig, board: Advertisement, bond?: boolean) =>
  provisionBoard({
    central: rig.central,
    store: rig.store,
    profile: { ...V1, security: { level: 1, bond } },
    product: PRODUCT,
    board,
    psdi: sequence(),
    timing: FAST,
  });

describe('provisioning a board with privacy', () => {
  it('follows a bonded board to its new private address, and the record keeps its identity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const bonds = await openBonds(dir, new MemoryCredentialStore(), { kind: 'keychain' });
    r = await rig([privateBoard()], { bonds });
    const picked = await adOf(r, V1.service);
    expect(picked.address).not.toBe(IDENTITY);
    expect(picked.identityAddress).toBeUndefined();
    const { record } = await run(r, picked, true);
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
    // The identity, which every later address resolves to; the address seen stays in the id.
    expect(record.boardAddress).toBe(IDENTITY);
    expect(record.boardId).toBe(picked.id);
    const product = await adOf(r, PRODUCT.serviceUuid);
    expect(product.address).not.toBe(picked.address);
    expect(product.identityAddress).toBe(IDENTITY);
    // The address it was picked under resolves to the same identity: a list shows it once.
    expect(product.formerIds).toEqual([picked.id]);
    // What `devicebench verify` and reconcile do with the record: its address finds the board.
    const psdi = await readBackPsdi({
      central: r.central,
      board: { address: record.boardAddress },
      product: PRODUCT,
      timeoutMs: 3_000,
      connectTimeoutMs: 1_000,
    });
    expect(psdi).toBe('DB-0001');
  });

  it('without a bond stops before a PSDI is reserved, saying why the board cannot be followed', async () => {
    r = await rig([privateBoard()]);
    const picked = await adOf(r, V1.service);
    const err = await failure(run(r, picked));
    expect(err.step).toBe('connect');
    expect(err.message).toContain(
      'the board uses a private address and no bond was kept: the new address it takes as it reboots cannot be resolved — bond during provisioning (profile security bond); no PSDI was reserved',
    );
    expect(err.record).toBeUndefined();
    expect((await r.store.search()).total).toBe(0);
    expect(r.bench.boards()[0]?.provisioning?.status).toBe('blank');
  });

  it('`devicebench verify` of a private address no bond resolves says why it is not found', async () => {
    r = await rig([privateBoard()]);
    const picked = await adOf(r, V1.service);
    const err = await readBackPsdi({
      central: r.central,
      board: { address: picked.address },
      product: PRODUCT,
      timeoutMs: 300,
      connectTimeoutMs: 300,
    }).catch((e: unknown) => e as Error);
    expect(String(err)).toContain(
      `the board did not advertise the product's service ${PRODUCT.serviceUuid} within 300 ms: the board uses a private address and no bond was kept`,
    );
  });
});

describe('a simulated board’s private address', () => {
  it('rotates a period after the board booted, not on the clock’s quarter hours, and anew at every boot', async () => {
    // Booted ten seconds before a quarter hour of the bench clock.
    const clock = new ManualSimClock(890_000);
    const bench = new SimulatedBench({ clock, seed: 3 });
    try {
      const [view] = bench.addBoard(privateBoard());
      const board = bench.board(view!.id)!;
      const first = board.airAddress;
      await clock.advance(20_000);
      expect(board.airAddress).toBe(first);
      await clock.advance(880_000);
      const second = board.airAddress;
      expect(second).not.toBe(first);
      bench.factoryReset(view!.id);
      await clock.advance(1);
      expect(board.airAddress).not.toBe(second);
      expect(board.airAddress).not.toBe(first);
    } finally {
      bench.close();
    }
  });
});
