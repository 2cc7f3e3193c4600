// Child process for the concurrency test: reserves `count` sequence PSDIs on a shared audit
// file as fast as it can and prints them as JSON. Run with `node --import tsx`.
import { openAuditStore } from '../../../src/core/audit/store';
import { createPsdiAllocator } from '../../../src/core/provisioning/psdi';
import { reserveInput } from './fixture';

const [file, worker, count] = process.argv.slice(2);
const store = openAuditStore({ file: file as string, station: `worker-${worker}` });
const allocator = createPsdiAllocator({ kind: 'sequence', prefix: 'DB-', width: 5 }, 20);
const psdis: string[] = [];
for (let i = 0; i < Number(count); i++) {
  // Each worker owns a range of board numbers so BoardBusy never interferes.
  const record = store.reserve(reserveInput(Number(worker) * 1000 + i, allocator));
  psdis.push(record.psdi);
}
store.close();
process.stdout.write(JSON.stringify(psdis));
