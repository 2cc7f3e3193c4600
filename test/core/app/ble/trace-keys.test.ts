// The app's BLE process follows "Keep link keys in traces" while it runs: with the box ticked,
// pairing the Zephyr Secure board writes its keys into the data folder's traces in clear; once
// it is cleared, the bonded reconnection's LTK is written redacted, with its note
// (docs/decisions/ble-and-hci.md, "Keys in traces").
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parseBtsnoop } from '../../../../src/core/ble/hci/btsnoop';
import { holdsKeys, isRedactionNote, KeyFinder } from '../../../../src/core/ble/hci/key-redaction';
import type { LinkInfo } from '../../../../src/core/ble/link-parameters';
import type { PairingPrompt } from '../../../../src/core/ble/host/pairing-prompts';
import { filesUnder } from '../../../helpers/key-scan';
import { scanFor, useApp } from '../../../helpers/app';

const get = useApp('app-trace-keys');
/** The passkey resources/sim/zephyr-secure.json shows. */
const PASSKEY = 246801;

/** The keys in the data folder's trace files: in clear, and redacted (their notes). */
function tracedKeys(): { inClear: number; redacted: number } {
  const counts = { inClear: 0, redacted: 0 };
  for (const file of filesUnder(get().dataDir).filter((f) => f.endsWith('.btsnoop'))) {
    const keys = new KeyFinder();
    for (const { direction, data } of parseBtsnoop(readFileSync(file)).records) {
      const found = keys.find(direction, data);
      if (found && holdsKeys(data, found)) counts.inClear += 1;
      if (isRedactionNote(data)) counts.redacted += 1;
    }
  }
  return counts;
}

/**
 * Connects to the Zephyr Secure board and pairs, answering its passkey prompt if it asks; the
 * caller disconnects once the key distribution it looks for is in the trace.
 */
async function connectAndPair(): Promise<string> {
  const device = await scanFor(get(), 'Zephyr Secure');
  const { connectionId } = await get().ok<{ connectionId: string }>('ble:connect', {
    deviceId: device.id,
  });
  const off = get().app.subscribe('ble:pairingPrompt', (p) => {
    const prompt = p as PairingPrompt;
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
  return connectionId;
}

describe('the BLE process and "Keep link keys in traces"', { timeout: 60_000 }, () => {
  it('writes the keys while the box is ticked, and redacts them from the moment it is cleared', async () => {
    // The BLE process runs before the choice changes: it follows without a restart.
    await scanFor(get(), 'Zephyr Secure');
    await get().ok('ble:saveTraceSettings', { keepKeys: true });
    const first = await connectAndPair();
    // The LTK in LE Enable Encryption, the board's IRK and the station's.
    await vi.waitFor(() => expect(tracedKeys()).toEqual({ inClear: 3, redacted: 0 }), 5_000);
    await get().ok('ble:disconnect', { connectionId: first });

    await get().ok('ble:saveTraceSettings', { keepKeys: false });
    // Bonded: the reconnection encrypts with the bond's LTK, and pairs no more.
    const again = await connectAndPair();
    await vi.waitFor(() => expect(tracedKeys()).toEqual({ inClear: 3, redacted: 1 }), 5_000);
    await get().ok('ble:disconnect', { connectionId: again });
  });
});
