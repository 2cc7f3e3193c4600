// A board with privacy comes back from its reboot under a new resolvable private address: verify
// finds it by the identity the bond made during provisioning resolves to, and without a bond
// says why it cannot follow the board (simulated bench, real noble).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Advertisement } from '../../../src/core/ble/port';
import { BondStore } from '../../../src/core/ble/security-manager/bond-store';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';
import { provisionBoard } from '../../../src/core/provisioning/workflow';
import { blankBoard, failure, FAST, PRODUCT, rig, sequence, V1, type Rig } from './fixture';

let r: Rig;
afterEach(() => r.close());

const IDENTITY = 'c2:8e:20:00:00:01';
const privateBoard = () => blankBoard(1, { security: { privacy: { rotateSeconds: 900 } } });

/** The board's first advertisement with `service`, found by name: its address is private. */
async function adOf(service: string): Promise<Advertisement> {
  let found: (ad: Advertisement) => void = () => {};
  const seen = new Promise<Advertisement>((resolve) => (found = resolve));
  const scan = await r.central.startScan({ serviceUuids: [service] }, (ad) => {
    if (ad.localName === 'DB Test 1') found(ad);
  });
  try {
    return await seen;
  } finally {
    await scan.stop();
  }
}

const run = (board: Advertisement, bond?: boolean) =>
  provisionBoard({
    central: r.central,
    store: r.store,
    profile: { ...V1, security: { level: 1, bond } },
    product: PRODUCT,
    board,
    psdi: sequence(),
    timing: FAST,
  });

describe('verify of a board with privacy', () => {
  it('follows a bonded board to its new private address by its identity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const bonds = await BondStore.open(dir, new MemoryCredentialStore(), { kind: 'keychain' });
    r = await rig([privateBoard()], { bonds });
    const picked = await adOf(V1.service);
    expect(picked.address).not.toBe(IDENTITY);
    expect(picked.identityAddress).toBeUndefined();
    const { record } = await run(picked, true);
    expect(record).toMatchObject({ state: 'verified', psdi: 'DB-0001' });
    // After the reboot: a new private address, which the bond resolves to the identity.
    const product = await adOf(PRODUCT.serviceUuid);
    expect(product.address).not.toBe(picked.address);
    expect(product.identityAddress).toBe(IDENTITY);
  });

  it('without a bond fails at verify, saying why the board cannot be followed', async () => {
    r = await rig([privateBoard()]);
    const picked = await adOf(V1.service);
    const err = await failure(run(picked));
    expect(err.step).toBe('verify');
    expect(err.message).toContain(
      'the board uses a private address and no bond was kept: its new address cannot be resolved — bond during provisioning (profile security bond)',
    );
    const product = await adOf(PRODUCT.serviceUuid);
    expect(product.address).not.toBe(picked.address);
    expect(product.identityAddress).toBeUndefined();
  });
});
