// Child process for the concurrent-open test: waits for the wall-clock moment every sibling was
// given, then opens (and so migrates) one SQLite log and reserves one PSDI on it, printing the
// record's id. Opened as the app opens it, through its worker thread. Tests run its bundle
// (test/helpers/bundled.ts); by hand, `node --import tsx`.
import { openAuditStore } from '../../../src/core/audit/open-store';
import { reserveInput } from './fixture';

const [file, startAt, worker] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const store = await openAuditStore({ location: { kind: 'local', file: file as string } });
const record = await store.reserve(reserveInput(Number(worker), `OPEN-${worker}`));
await store.close();
process.stdout.write(String(record.id));
