// Child process for the line tests: one station provisioning its own tray of simulated boards
// in a batch against a shared audit log, then printing the batch summary as one JSON line.
// Tests run its bundle (test/helpers/bundled.ts); by hand,
// `node --import tsx station-child.ts '<json options>'`.
import { createSimulatedCentral } from '../../../src/core/ble/radio/sim-central';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { openAuditStore } from '../../../src/core/audit/open-store';
import { startBatch } from '../../../src/core/provisioning/batch';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { FAST, PRODUCT, V1 } from './fixture';
import { stationTray, type StationOptions } from './line-fixture';

const options = JSON.parse(process.argv[2] as string) as StationOptions;
const bench = new SimulatedBench({ seed: options.index + 1, stateFile: options.stateFile });
for (const spec of stationTray(options)) bench.addBoard(spec, 'test');
const central = createSimulatedCentral(bench);
const store = await openAuditStore({
  location: { kind: 'postgres', url: options.url },
  station: options.station,
});
const summary = await startBatch({
  central,
  store,
  profile: V1,
  product: PRODUCT,
  psdi: createPsdiAllocator({ kind: 'sequence', prefix: 'LINE-', width: 5 }, 20),
  timing: FAST,
  concurrency: 4,
  idleMs: 2_000,
  maxBoards: options.boards,
}).done;
process.stdout.write(
  JSON.stringify({ ok: summary.ok, failed: summary.failed, skipped: summary.skipped }) + '\n',
);
await central.close();
bench.close();
await store.close();
process.exit(0);
