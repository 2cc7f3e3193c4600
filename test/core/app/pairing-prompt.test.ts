// A pairing prompt through the app's contract: the station on a btvirt adapter, a ble-host board
// that displays its passkey; `ble:pair` asks for MITM, the app says `ble:pairingPrompt` for the
// link, `ble:answerPairing` gives the passkey, and the link is level 4. A malformed answer is
// refused naming its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanFor, useApp } from '../../helpers/app';
import { openH4 } from '../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../src/core/ble/hci/h4-socket';
import type { LinkInfo } from '../../../src/core/ble/link-parameters';
import type { PairingPrompt } from '../../../src/core/ble/host/pairing-prompts';
import { startBtvirt, type Btvirt } from '../../helpers/btvirt/btvirt';
import { board, NAME, startScBoard } from '../../helpers/btvirt/sc-board';
import { bleHostBondsCleanup } from '../../helpers/ble-host-bonds';

const get = useApp('app-pairing-prompt');
const removeBoardBonds = bleHostBondsCleanup();

describe('a pairing prompt in the app', { timeout: 60_000 }, () => {
  let btvirt: Btvirt;
  let boardSocket: H4Socket;

  beforeAll(async () => {
    btvirt = await startBtvirt();
    boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
    boardSocket.start();
    board.ioCap = 0; // DisplayOnly: the board shows, the station types
    await startScBoard(boardSocket);
    await get().ok('ble:setAdapters', { adapters: [`unix:${btvirt.leSocket}`], dropLinks: true });
  }, 30_000);

  afterAll(async () => {
    boardSocket?.stop();
    await btvirt?.stop();
    removeBoardBonds();
  });

  it('asks for the passkey the board shows and pairs with the answer', async () => {
    const prompts: PairingPrompt[] = [];
    const off = get().app.subscribe('ble:pairingPrompt', (p) => prompts.push(p as PairingPrompt));
    const device = await scanFor(get(), NAME);
    const { connectionId } = await get().ok<{ connectionId: string }>('ble:connect', {
      deviceId: device.id,
    });
    const paired = get().ok<LinkInfo>('ble:pair', {
      connectionId,
      io: 'keyboardOnly',
      mitm: true,
      sc: true,
    });
    for (let i = 0; prompts.length === 0 && i < 250; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    off();
    expect(prompts).toEqual([
      {
        id: expect.any(String),
        kind: 'enterPasskey',
        deviceId: device.id,
        connectionId,
        board: NAME,
        timeoutMs: 30_000,
        remainingMs: 30_000,
        state: 'open',
      },
    ]);
    expect(
      await get().fails('ble:answerPairing', { deviceId: device.id, passkey: 1_234_567 }),
    ).toMatchObject({ fields: [{ field: 'passkey', message: 'must be six digits' }] });
    expect(
      await get().ok('ble:answerPairing', { deviceId: device.id, passkey: board.shown }),
    ).toEqual({ answered: true });
    // Answered: a second answer finds nothing waiting, said as the device's, not unexpected.
    expect(
      await get().fails('ble:answerPairing', { deviceId: device.id, passkey: 1 }),
    ).toMatchObject({
      code: 'device',
      message: expect.stringContaining(`no pairing with ${device.id} waits for an answer`),
    });
    expect(await paired).toMatchObject({
      securityLevel: 4,
      security: { method: 'passkeyEntry', key: 'sc', authenticated: true },
    });
    await get().ok('ble:disconnect', { connectionId });
  });
});
