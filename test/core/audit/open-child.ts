// Child process for the concurrent-open test: once loaded it prints `ready` and waits for a
// line on stdin, which the test sends every sibling at once when all are ready, then opens (and
// so migrates) one SQLite log and reserves one PSDI on it, printing the record's id. Opened as
// the app opens it, through its worker thread. Tests run its bundle (test/helpers/bundled.ts);
// by hand, `node --import tsx`, then Enter.
import { openAuditStore } from '../../../src/core/audit/open-store';
import { reserveInput } from './fixture';

const [file, worker] = process.argv.slice(2);
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
const store = await openAuditStore({ location: { kind: 'local', file: file as string } });
const record = await store.reserve(reserveInput(Number(worker), `OPEN-${worker}`));
await store.close();
process.stdout.write(String(record.id));
