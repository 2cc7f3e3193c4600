// The Zephyr-like MCUmgr board both simulated-board test files drive (two files because noble
// adds a process listener per simulated central), and how they open and reset it.
import { board, type Rig } from '../fixture';
import { McumgrClient } from '../../../../src/core/ble/mcumgr/client';
import { reset } from '../../../../src/core/ble/mcumgr/os-group';
import type { BoardSpecInput } from '../../../../src/core/ble/sim/board-schema';
import type { BleConnection } from '../../../../src/core/ble/port';

export const zephyr = (
  mcumgr: BoardSpecInput['mcumgr'] = {},
  overrides: Partial<BoardSpecInput> = {},
) =>
  board({
    name: 'Zephyr MCUmgr',
    address: 'c3:00:00:00:00:01',
    mcumgr: { bufferSize: 1024, resetMs: 50, ...mcumgr },
    ...overrides,
  });

export async function openMcumgr(
  r: Rig,
  mtu?: number,
): Promise<{ link: BleConnection; client: McumgrClient }> {
  const ad = await r.find({ name: 'Zephyr MCUmgr' });
  const link = await r.drive(r.central.connect(ad.id, mtu ? { mtu } : {}));
  const client = await r.drive(McumgrClient.open(link, { clock: r.clock, timeoutMs: 1_000 }));
  return { link, client };
}

/** Resets the board and waits for the link to go down. */
export async function resetAndWait(
  r: Rig,
  link: BleConnection,
  client: McumgrClient,
): Promise<void> {
  const down = new Promise<void>((resolve) => link.onDisconnect(() => resolve()));
  await r.drive(reset(client));
  await r.drive(down);
}
