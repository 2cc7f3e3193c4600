// The simulated bench's boards as the BLE bench shows them, and the board files it ships
// (resources/sim) to load onto it by name.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { formatUuid } from '../../ble/port';
import { SIM_BOARDS_DIR } from '../../ble/sim/board-file';
import type { BoardView } from '../../ble/sim/board-view';
import { SetupError } from '../errors';

/** The shipped board files, by name, with each one's description. */
export async function builtInBoardFiles(): Promise<{ name: string; description?: string }[]> {
  const files = (await readdir(SIM_BOARDS_DIR)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (name) => ({
      name,
      description: describeFile(await readFile(join(SIM_BOARDS_DIR, name), 'utf8')),
    })),
  );
}

/** The path of the shipped board file `name`; any other name is refused at `name`. */
export function builtInBoardFile(name: string): string {
  if (basename(name) !== name || !name.endsWith('.json'))
    throw new SetupError('name', 'must be the name of a file in resources/sim');
  return join(SIM_BOARDS_DIR, name);
}

function describeFile(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { description?: unknown };
    return typeof json.description === 'string' ? json.description : undefined;
  } catch {
    return undefined;
  }
}

/** A board of the bench as the BLE bench shows it. */
export function simBoardOf(view: BoardView) {
  return {
    id: view.id,
    address: view.address,
    name: view.name,
    source: view.source,
    connected: view.connected,
    advertising: {
      serviceUuids: view.advertising.serviceUuids,
      intervalMs: view.advertising.intervalMs,
    },
    provisioned: view.provisioning?.committed && {
      serviceUuid: view.provisioning.committed.serviceUuid,
      psdiServiceUuid: view.provisioning.committed.psdiServiceUuid,
      psdiCharacteristicUuid: view.provisioning.committed.psdiCharacteristicUuid,
      psdi: view.provisioning.committed.psdi,
    },
    profileId: view.provisioning?.profileId,
    hasButton: view.buttons.length > 0,
    characteristics: Object.keys(view.maxLengths).map((uuid) => ({
      uuid: formatUuid(uuid),
      name: view.names[uuid],
    })),
    faults: {
      refuseConnection: Boolean(view.faults.refuseConnection),
      dropLinkDuringWrite: Boolean(view.faults.dropLinkDuringWrite),
      dropLinkAfterWrites: view.faults.dropLinkDuringWrite?.afterWrites ?? 0,
      dropLinkCharacteristic: view.faults.dropLinkDuringWrite?.characteristic,
      slowLinkFactor: view.faults.slowLink ?? 1,
      refusePairing: view.faults.refusePairing ?? false,
      forgetBonds: view.faults.forgetBonds ?? false,
      refuseAccess: view.faults.refuseAccess,
    },
  };
}
