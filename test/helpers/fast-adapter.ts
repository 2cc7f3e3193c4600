// The simulated bench's controller for tests that are about what the bench does, not how fast
// the default link moves: a data folder's `sim-adapter.json` with Data Length Extension
// (251-byte PDUs for a link that asks, as an upload does), the shortest interval noble asks for
// and eight PDUs an event, so uploads and batches take a fraction of the default's time (docs/decisions/tooling.md, "Test suite time").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FAST_ADAPTER = {
  connectionIntervalMs: 7.5,
  aclBufferSize: 251,
  dataLength: 251,
  pdusPerEvent: 8,
};

/** Writes the fast controller into data folder `dataDir` (made if missing); returns `dataDir`. */
export function withFastAdapter(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'sim-adapter.json'), JSON.stringify(FAST_ADAPTER));
  return dataDir;
}
