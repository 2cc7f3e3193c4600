// ble-host's peripheral keeps its bonds in `NodeBleLib-storage-dir` of the working directory; a
// test whose board bonds removes the folder afterwards (unless it was there before), so nothing
// lands in the checkout and no bond from one test makes a board refuse the next pairing.
import { existsSync, rmSync } from 'node:fs';

const FOLDER = 'NodeBleLib-storage-dir';

/** Call once at load; the returned function removes the bonds the tests made. */
export function bleHostBondsCleanup(): () => void {
  const existed = existsSync(FOLDER);
  return () => {
    if (!existed) rmSync(FOLDER, { recursive: true, force: true });
  };
}
