// The simulated bench's controls, through the BLE process: board files, faults, the button and
// a factory reset. Every page showing the bench's boards follows changes made from any of them.
import { EventEmitter } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { formatUuid } from '../../ble/port';
import type { BoardView } from '../../ble/sim/board-view';
import { SIM_BOARDS_DIR } from '../../ble/sim/board-file';
import type { SimBoard, simEvents, simOperations } from '../contracts/sim';
import { AppFailure } from '../errors';
import type { HostSupervisor } from '../../usecases/bench/host-supervisor';
import type { AreaEvents, AreaHandlers } from './context';
import { listen } from './listen';

export function simHandlers(supervisor: HostSupervisor): {
  handlers: AreaHandlers<typeof simOperations>;
  sources: AreaEvents<typeof simEvents>;
} {
  const boards = async () => (await supervisor.sim('boards', {})).map(toSimBoard);
  const simChanges = new EventEmitter<{ boards: [SimBoard[]] }>();
  const changed = <T>(result: T): T => {
    void boards().then(
      (list) => simChanges.emit('boards', list),
      () => undefined,
    );
    return result;
  };

  return {
    handlers: {
      'sim:listBoards': boards,
      'sim:listBoardFiles': async () => {
        const files = (await readdir(SIM_BOARDS_DIR)).filter((f) => f.endsWith('.json')).sort();
        return Promise.all(
          files.map(async (name) => ({
            name,
            description: describeFile(await readFile(join(SIM_BOARDS_DIR, name), 'utf8')),
          })),
        );
      },
      'sim:loadBuiltIn': async ({ name }) => {
        if (basename(name) !== name || !name.endsWith('.json'))
          throw AppFailure.field('name', 'must be the name of a file in resources/sim');
        const loaded = await supervisor.sim('loadBoardFile', { path: join(SIM_BOARDS_DIR, name) });
        return changed(loaded.map(toSimBoard));
      },
      'sim:loadBoards': async ({ fileName, text }) =>
        changed((await supervisor.sim('loadBoards', { text, source: fileName })).map(toSimBoard)),
      'sim:removeBoard': async ({ boardId }) => {
        await supervisor.sim('removeBoard', { boardId });
        return changed({ removed: true as const });
      },
      'sim:pressButton': async ({ boardId }) => {
        await supervisor.sim('pressButton', { boardId });
        return { pressed: true as const };
      },
      'sim:setFaults': async ({ boardId, ...faults }) => {
        const current = (await boards()).find((b) => b.id === boardId);
        if (!current) throw AppFailure.field('boardId', `no board ${boardId} on the bench`);
        const { dropLinkCharacteristic, refuseAccess, ...rest } = { ...current.faults, ...faults };
        const dropOn =
          faults.dropLinkCharacteristic === null
            ? undefined
            : (dropLinkCharacteristic ?? undefined);
        const refused = faults.refuseAccess === null ? undefined : (refuseAccess ?? undefined);
        return changed(
          toSimBoard(
            await supervisor.sim('setFaults', {
              boardId,
              faults: {
                refuseConnection: rest.refuseConnection,
                dropLinkDuringWrite: rest.dropLinkDuringWrite
                  ? { characteristic: dropOn, afterWrites: rest.dropLinkAfterWrites }
                  : undefined,
                slowLink: rest.slowLinkFactor > 1 ? rest.slowLinkFactor : undefined,
                refusePairing: rest.refusePairing,
                forgetBonds: rest.forgetBonds,
                refuseAccess: refused,
              },
            }),
          ),
        );
      },
      'sim:factoryReset': async ({ boardId }) =>
        changed(toSimBoard(await supervisor.sim('factoryReset', { boardId }))),
    },
    sources: {
      'sim:boards': (handler) => listen(simChanges, 'boards', handler),
    },
  };
}

function describeFile(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { description?: unknown };
    return typeof json.description === 'string' ? json.description : undefined;
  } catch {
    return undefined;
  }
}

function toSimBoard(view: BoardView): SimBoard {
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
