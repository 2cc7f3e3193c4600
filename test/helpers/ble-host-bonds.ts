// ble-host's peripheral keeps its bonds in `NodeBleLib-storage-dir` of the working directory,
// and reads the bonds of its own address from there the first time it starts in a process.
// btvirt gives every run the same addresses, so files running at once shared one folder: a file
// read another's bonds at start, or lost its own when the other removed the folder at its end.
// Each file that starts a ble-host board therefore works in a folder of its own for the file's
// duration (its worker process is its own), removed at the end, so nothing lands in the checkout
// and no bond from one file makes a board refuse the next file's pairing. The folder is inside
// the checkout's test-results/ so that a BLE process the file starts with `--import tsx`
// (resolved from the working directory) still finds the checkout's node_modules.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Call once at load; the returned function (for `afterAll`) removes the file's bonds. */
export function bleHostBondsCleanup(): () => void {
  const home = process.cwd();
  const parent = resolve(home, 'test-results');
  mkdirSync(parent, { recursive: true });
  const own = mkdtempSync(join(parent, 'ble-host-bonds-'));
  process.chdir(own);
  return () => {
    process.chdir(home);
    rmSync(own, { recursive: true, force: true });
  };
}
