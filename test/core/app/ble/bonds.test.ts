// The station's bonds through the app's contract, on the simulated bench: the Zephyr Secure
// board paired with its passkey is listed under the adapter whose identity made the bond, with
// its name and key; forgetting it (one board, then all of the adapter's) answers how many,
// announces the list on `ble:bonds`, leaves the open link encrypted until it drops, and the
// next connection pairs afresh, asking for the passkey again. Bad input is refused by field.
import { describe, expect, it } from 'vitest';
import { scanFor, useApp } from '../../../helpers/app';
import type { AdapterBonds } from '../../../../src/core/usecases/bench/bench-schema';
import type { LinkInfo } from '../../../../src/core/ble/link-parameters';
import type { LoggedLink } from '../../../../src/core/ble/link-record';
import type { PairingPrompt } from '../../../../src/core/ble/host/pairing-prompts';

const get = useApp('app-bonds');
const BOARD = 'e8:2b:7c:00:20:01';
/** The passkey resources/sim/zephyr-secure.json shows. */
const PASSKEY = 246801;

/** The next `ble:bonds` announcement. */
function nextBonds(): Promise<AdapterBonds> {
  return new Promise((resolve) => {
    const off = get().app.subscribe('ble:bonds', (bonds) => {
      off();
      resolve(bonds as AdapterBonds);
    });
  });
}

/** Connects to the Zephyr Secure board and pairs with MITM, answering its passkey prompt. */
async function connectAndPair(): Promise<{ connectionId: string; prompts: PairingPrompt[] }> {
  const device = await scanFor(get(), 'Zephyr Secure');
  const { connectionId } = await get().ok<{ connectionId: string }>('ble:connect', {
    deviceId: device.id,
  });
  const prompts: PairingPrompt[] = [];
  const off = get().app.subscribe('ble:pairingPrompt', (p) => {
    const prompt = p as PairingPrompt;
    prompts.push(prompt);
    if (prompt.state === 'open' && prompt.kind === 'enterPasskey')
      void get().ok('ble:answerPairing', { deviceId: prompt.deviceId, passkey: PASSKEY });
  });
  const link = await get().ok<LinkInfo>('ble:pair', {
    connectionId,
    io: 'keyboardOnly',
    mitm: true,
    sc: true,
  });
  off();
  expect(link.security).toMatchObject({ key: 'sc', authenticated: true, bonded: true });
  return { connectionId, prompts };
}

describe('bonds through the contract', { timeout: 60_000 }, () => {
  it('lists a bond under its adapter and forgets it, one board and then all', async () => {
    const before = await get().ok<AdapterBonds>('ble:listBonds');
    expect(before.adapters).toEqual([
      expect.objectContaining({ index: 0, spec: 'sim', bonds: [] }),
    ]);
    const identity = before.adapters[0]!.identity!.address;
    expect(['encrypted', 'memory']).toContain(before.storage.kind);

    const kept = nextBonds();
    const first = await connectAndPair();
    expect(first.prompts.filter((p) => p.state === 'open')).toHaveLength(1);
    const bond = {
      station: identity,
      board: BOARD,
      name: 'DB Zephyr Secure',
      security: expect.objectContaining({
        key: 'sc',
        authenticated: true,
        keySize: 16,
        method: 'passkeyEntry',
      }),
      bondedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    };
    expect((await kept).adapters[0]!.bonds).toEqual([expect.objectContaining(bond)]);
    const listed = await get().ok<AdapterBonds>('ble:listBonds');
    expect(listed.adapters[0]!.bonds).toEqual([expect.objectContaining(bond)]);
    // No key leaves the BLE process.
    expect(JSON.stringify(listed)).not.toMatch(/ltk|"rand"|irk/i);

    expect(await get().fails('ble:forgetBonds', { identity: 'station-1' })).toMatchObject({
      fields: [{ field: 'identity', message: expect.stringContaining('Bluetooth address') }],
    });
    expect(await get().fails('ble:forgetBonds', { identity, board: 'e8:2b:7c' })).toMatchObject({
      fields: [{ field: 'board' }],
    });

    const forgotten = nextBonds();
    expect(await get().ok('ble:forgetBonds', { identity, board: BOARD.toUpperCase() })).toEqual({
      forgotten: 1,
    });
    expect((await forgotten).adapters[0]!.bonds).toEqual([]);
    expect((await get().ok<AdapterBonds>('ble:listBonds')).adapters[0]!.bonds).toEqual([]);
    expect(await get().ok('ble:forgetBonds', { identity, board: BOARD })).toEqual({
      forgotten: 0,
    });
    // The open link keeps the encryption it has until it drops.
    const links = await get().ok<LoggedLink[]>('ble:listLinks');
    expect(links.find((l) => l.connectionId === first.connectionId)?.info?.securityLevel).toBe(4);
    await get().ok('ble:disconnect', { connectionId: first.connectionId });

    // The next connection pairs afresh: the passkey is asked for again.
    const keptAgain = nextBonds();
    const again = await connectAndPair();
    expect(again.prompts.filter((p) => p.state === 'open')).toHaveLength(1);
    // The keys come after the link is encrypted: the bond is listed once they are kept.
    expect((await keptAgain).adapters[0]!.bonds).toEqual([expect.objectContaining(bond)]);
    expect(await get().ok('ble:forgetBonds', { identity })).toEqual({ forgotten: 1 });
    expect((await get().ok<AdapterBonds>('ble:listBonds')).adapters[0]!.bonds).toEqual([]);
    await get().ok('ble:disconnect', { connectionId: again.connectionId });
  });
});
