// Child process for the crash test: reserves sequence PSDIs on a SQLite log (through its worker
// thread) until killed, printing each record's id and PSDI once its reservation has resolved,
// i.e. once the store says it is committed. Tests run its bundle (test/helpers/bundled.ts);
// by hand, `node --import tsx`.
import { openAuditStore } from '../../../src/core/audit/open-store';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import { reserveInput } from './fixture';

const [file] = process.argv.slice(2);
const store = await openAuditStore({ location: { kind: 'local', file: file as string } });
const allocator = createPsdiAllocator({ kind: 'sequence', prefix: 'K-', width: 5 }, 20);
for (let n = 1; ; n++) {
  const record = await store.reserve(reserveInput(n, allocator));
  process.stdout.write(`${record.id} ${record.psdi}\n`);
}
