// Child process for the kill tests: provisions one board of a bench whose flash is a state
// file, on a link slow enough that the test can kill it at a chosen moment. Tests run its
// bundle (test/helpers/bundled.ts); by hand, `node --import tsx provision-child.ts <db> <bench-state> <perOperationMs> <rebootMs>`.
import { createSimulatedCentral } from '../../../src/core/ble/radio/sim-central';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { openAuditStore } from '../../../src/core/audit/open-store';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { provisionBoard } from '../../../src/core/provisioning/workflow';
import { advertisementOf, blankBoard, PRODUCT, V1 } from './fixture';

const [dbFile, stateFile, perOperationMs, rebootMs] = process.argv.slice(2);
const bench = new SimulatedBench({ seed: 3, stateFile });
bench.addBoard(
  blankBoard(1, {
    latency: { connectMs: 15, perOperationMs: Number(perOperationMs) },
    provisioning: { profile: V1.id, rebootMs: Number(rebootMs) },
  }),
);
const central = createSimulatedCentral(bench);
const store = await openAuditStore({
  location: { kind: 'local', file: dbFile as string },
  station: 'child',
});
const board = await advertisementOf(central, 'c2:8e:20:00:00:01');
await provisionBoard({
  central,
  store,
  profile: V1,
  product: PRODUCT,
  board,
  psdi: createPsdiAllocator({ kind: 'sequence', prefix: 'KILL-', width: 3 }, 20),
});
process.stdout.write('provisioned\n');
process.exit(0);
