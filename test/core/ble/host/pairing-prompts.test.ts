// The BLE process asks the person at the station: over btvirt, a ble-host board that displays
// its passkey; the process says a passkey is wanted (with the link and the SMP time limit), the
// answer comes back as a call, and the link reaches level 4. A wrong answer fails the pairing in
// words, and an answer nobody asked for is refused naming the board.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BleHost, forkHost } from '../../../../src/core/ble/host/ble-host';
import type { PairingPrompt } from '../../../../src/core/ble/host/pairing-prompts';
import { openH4 } from '../../../../src/core/ble/hci/h4-transports';
import type { H4Socket } from '../../../../src/core/ble/hci/h4-socket';
import type { Advertisement } from '../../../../src/core/ble/port';
import { startBtvirt, type Btvirt } from '../../../helpers/btvirt/btvirt';
import { board, NAME, SECRET, SERVICE, startScBoard } from '../../../helpers/btvirt/sc-board';
import { bleHostBondsCleanup } from '../../../helpers/ble-host-bonds';
import { remoteCentral } from '../../../../src/core/ble/host/remote-central';

const removeBoardBonds = bleHostBondsCleanup();

describe('pairing prompts from the BLE process', { timeout: 60_000 }, () => {
  let btvirt: Btvirt;
  let boardSocket: H4Socket;
  let host: BleHost;
  const prompts: PairingPrompt[] = [];

  beforeAll(async () => {
    btvirt = await startBtvirt();
    boardSocket = await openH4({ kind: 'unix', path: btvirt.leSocket });
    boardSocket.start();
    board.ioCap = 0; // DisplayOnly: the board shows, the station types
    await startScBoard(boardSocket);
    host = await BleHost.start(forkHost({ adapters: [`unix:${btvirt.leSocket}`] }));
    host.onLinks({ prompt: (prompt) => prompts.push(prompt) });
  }, 30_000);

  afterAll(async () => {
    await host?.stop();
    boardSocket?.stop();
    await btvirt?.stop();
    removeBoardBonds();
  });

  async function connect() {
    const central = remoteCentral(host, 'explorer');
    let found: (ad: Advertisement) => void = () => undefined;
    const seen = new Promise<Advertisement>((resolve) => (found = resolve));
    const scan = await central.startScan({ name: NAME }, (ad) => found(ad));
    const ad = await seen.finally(() => scan.stop());
    prompts.length = 0;
    board.shown = undefined;
    return central.connect(ad.id);
  }

  async function promptFor(): Promise<PairingPrompt> {
    for (let i = 0; prompts.length === 0 && i < 250; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(prompts).toHaveLength(1);
    return prompts[0]!;
  }

  it('asks for the passkey the board shows, and pairs at level 4 with the answer', async () => {
    const link = await connect();
    const paired = link.requestLink!({ kind: 'pair', io: 'keyboardOnly', mitm: true, sc: true });
    const prompt = await promptFor();
    expect(prompt).toMatchObject({ kind: 'enterPasskey', deviceId: link.id, timeoutMs: 30_000 });
    // The prompt names the link as the process's windows know it.
    expect(prompt.connectionId).toBe(
      host.links.find((l) => l.deviceId === link.id && l.state === 'connected')?.connectionId,
    );
    expect(prompt.connectionId).toBeDefined();
    expect(board.shown).toBeTypeOf('number');
    await host.call('answerPairing', { deviceId: prompt.deviceId, passkey: board.shown });
    expect(await paired).toMatchObject({
      securityLevel: 4,
      security: { method: 'passkeyEntry', key: 'sc', authenticated: true },
    });
    expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
    // The prompt was answered: a second answer finds nothing waiting.
    await expect(
      host.call('answerPairing', { deviceId: prompt.deviceId, passkey: 1 }),
    ).rejects.toThrow(`no pairing with ${prompt.deviceId} waits for an answer`);
    await link.disconnect();
  });

  it('a wrong passkey fails the pairing with its SMP reason', async () => {
    const link = await connect();
    const paired = link.requestLink!({ kind: 'pair', io: 'keyboardOnly', mitm: true, sc: true });
    const prompt = await promptFor();
    const wrong = ((board.shown ?? 0) + 1) % 1_000_000;
    await host.call('answerPairing', { deviceId: prompt.deviceId, passkey: wrong });
    await expect(paired).rejects.toThrow(/confirm value failed/i);
    await link.disconnect().catch(() => undefined);
  });
});
