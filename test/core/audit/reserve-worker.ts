// Child process for the concurrency tests: one station reserving `count` sequence PSDIs on a
// shared log as fast as it can, printing them as JSON. Tests
// run its bundle (test/helpers/bundled.ts); by hand, `node --import tsx`.
import { openAuditStore, type AuditLocation } from '../../../src/core/audit/open-store';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { reserveInput } from './fixture';

const [location, worker, count] = process.argv.slice(2);
const store = await openAuditStore({
  location: JSON.parse(location as string) as AuditLocation,
  station: `worker-${worker}`,
});
const allocator = createPsdiAllocator({ kind: 'sequence', prefix: 'DB-', width: 5 }, 20);
const psdis: string[] = [];
for (let i = 0; i < Number(count); i++) {
  // Each worker owns a range of board numbers so BoardBusy never interferes.
  const record = await store.reserve(reserveInput(Number(worker) * 1000 + i, allocator));
  psdis.push(record.psdi);
}
await store.close();
process.stdout.write(JSON.stringify(psdis));
