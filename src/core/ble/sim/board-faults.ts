// How a board's faults (docs/decisions/simulated-bench.md, "Faults") answer one attempt:
// a connection refused by chance, an ATT access refused with the fault's code.
import type { BoardFaults } from './board-schema';
import type { SeededRandom } from './random';

/** Rolls the refuseConnection fault for one attempt. */
export function refusesConnection(faults: BoardFaults, rng: SeededRandom): boolean {
  const refuse = faults.refuseConnection;
  return refuse === true || (typeof refuse === 'number' && refuse > 0 && rng.next() < refuse);
}

/** The `refuseAccess` fault's answer to this access, if it applies. */
export function refusedAccess(
  faults: BoardFaults,
  operation: 'read' | 'write',
  characteristic: string,
): { ok: false; code: number } | undefined {
  const refuse = faults.refuseAccess;
  if (!refuse || refuse.operation !== operation) return undefined;
  if (refuse.characteristic !== undefined && refuse.characteristic !== characteristic)
    return undefined;
  return { ok: false, code: refuse.code };
}
