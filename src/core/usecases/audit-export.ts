// Exporting the audit log, the same for the app and the CLI: the store's CSV chunks for a filter,
// oldest first, with the rows taken so far reported after each chunk and once at the end. Memory
// stays at one chunk whatever the log holds (docs/decisions/audit-log.md, "Audit log off the
// window's thread, exports as streams"); each front end says where the text goes.
import { writeCsvFile, type CsvChunk } from '../audit/csv-export';
import type { AuditStore, ExportQuery } from '../audit/store';

/** How far an export has come; `total` is the filter's count when it started. */
export interface ExportProgress {
  rows: number;
  total: number;
  done: boolean;
  error?: string;
}

/** The export's chunks, reporting progress as each one is taken. */
export async function auditCsv(
  store: AuditStore,
  query: ExportQuery,
  progress: (progress: ExportProgress) => void = () => undefined,
): Promise<AsyncGenerator<CsvChunk>> {
  const total = (await store.search({ ...query, limit: 1 })).total;
  const chunks = store.exportCsv(query);
  let rows = 0;
  progress({ rows, total, done: false });
  async function* counted(): AsyncGenerator<CsvChunk> {
    try {
      for await (const chunk of chunks) {
        yield chunk;
        rows += chunk.rows;
        if (chunk.rows) progress({ rows, total, done: false });
      }
      progress({ rows, total, done: true });
    } catch (err) {
      progress({ rows, total, done: true, error: (err as Error).message });
      throw err;
    }
  }
  return counted();
}

/** The export into `file`, never left half written (`writeCsvFile`). */
export async function saveAuditCsv(
  store: AuditStore,
  query: ExportQuery,
  file: string,
  progress?: (progress: ExportProgress) => void,
): Promise<{ rows: number }> {
  return writeCsvFile(await auditCsv(store, query, progress), file);
}

/** The export's text, chunk by chunk, for a download or stdout. */
export async function* auditCsvText(chunks: AsyncIterable<CsvChunk>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield chunk.text;
}
