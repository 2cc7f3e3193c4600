// The simulated bench's controls, through the BLE process: board files, faults, the button and
// a factory reset. Every page showing the bench's boards follows changes made from any of them.
import { EventEmitter } from 'node:events';
import type { SimBoard, simEvents, simOperations } from '../contracts/sim';
import { AppFailure } from '../errors';
import { builtInBoardFile, builtInBoardFiles, simBoardOf } from '../../usecases/bench/sim-boards';
import type { HostSupervisor } from '../../usecases/bench/host-supervisor';
import type { AreaEvents, AreaHandlers } from './context';
import { listen } from './listen';

/**
 * The BLE process keeps only an error's name and message: a simulated bench's refusal of the
 * board asked for (no such board) is answered here naming `boardId`.
 */
async function onBoard<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof Error && err.name === 'SimBenchError')
      throw AppFailure.field('boardId', err.message);
    throw err;
  }
}

export function simHandlers(supervisor: HostSupervisor): {
  handlers: AreaHandlers<typeof simOperations>;
  sources: AreaEvents<typeof simEvents>;
} {
  const boards = async () => (await supervisor.sim('boards', {})).map(simBoardOf);
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
      'sim:listBoardFiles': () => builtInBoardFiles(),
      'sim:loadBuiltIn': async ({ name }) => {
        const loaded = await supervisor.sim('loadBoardFile', { path: builtInBoardFile(name) });
        return changed(loaded.map(simBoardOf));
      },
      'sim:loadBoards': async ({ fileName, text }) =>
        changed((await supervisor.sim('loadBoards', { text, source: fileName })).map(simBoardOf)),
      'sim:removeBoard': async ({ boardId }) => {
        await onBoard(supervisor.sim('removeBoard', { boardId }));
        return changed({ removed: true as const });
      },
      'sim:pressButton': async ({ boardId }) => {
        await onBoard(supervisor.sim('pressButton', { boardId }));
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
          simBoardOf(
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
        changed(simBoardOf(await onBoard(supervisor.sim('factoryReset', { boardId })))),
    },
    sources: {
      'sim:boards': (handler) => listen(simChanges, 'boards', handler),
    },
  };
}
