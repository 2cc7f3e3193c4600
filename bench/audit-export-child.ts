// One CSV export of one product in a process of its own, through the store as the app opens it,
// so its peak memory is measured against this process's own baseline and nothing else the
// benchmark allocated. Prints {ms, baselineMiB, peakMiB, bytes} as JSON.
import { statSync } from 'node:fs';
import { writeCsvFile } from '../src/core/audit/csv-export';
import { openAuditStore, type AuditLocation } from '../src/core/audit/open-store';

const [locationJson, productId, file] = process.argv.slice(2);
if (!locationJson || !productId || !file)
  throw new Error('usage: <location json> <product> <file>');

const MIB = 1024 * 1024;
const store = await openAuditStore({
  location: JSON.parse(locationJson) as AuditLocation,
  station: 'export',
});
try {
  await store.ping();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  // A sampler on this thread sees only what the event loop lets it; maxRSS (the kernel's
  // high-water mark) catches a peak inside a call that blocks it.
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = performance.now();
  await writeCsvFile(store.exportCsv({ productId }), file);
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
  process.stdout.write(
    JSON.stringify({
      ms: elapsed,
      baselineMiB: baseline / MIB,
      peakMiB: peak / MIB,
      bytes: statSync(file).size,
    }),
  );
} finally {
  await store.close();
}
