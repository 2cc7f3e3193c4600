// Exporting the audit log: a stream of CSV chunks from the store, into the file the main process
// asked for (Electron's save dialog) or down an HTTP response (the bench server), with progress
// events either way. Memory stays at one chunk whatever the log holds (docs/decisions.md,
// "Audit log off the window's thread, exports as streams").
import { EventEmitter } from 'node:events';
import { writeCsvFile, type CsvChunk } from '../../audit/csv-export';
import type { AuditStore } from '../../audit/store';
import {
  auditExportSchema,
  type AuditExportInput,
  type AuditExportProgress,
} from '../contracts/audit';
import { AppFailure } from '../errors';
import type { AppContext } from './context';

export interface AuditExport {
  /** `audit:exportCsv`: the shell picks the file; refused where there is no shell to ask. */
  saveCsv(
    input: AuditExportInput,
  ): Promise<{ saved: true; file: string; rows: number } | { saved: false }>;
  /** The bench server's download: the file name to suggest and the CSV text, chunk by chunk. */
  downloadCsv(input: AuditExportInput): Promise<{ fileName: string; body: AsyncIterable<string> }>;
  onProgress(handler: (progress: AuditExportProgress) => void): () => void;
}

export function auditExport(ctx: AppContext, store: () => Promise<AuditStore>): AuditExport {
  const events = new EventEmitter<{ progress: [AuditExportProgress] }>();
  const emit = (progress: AuditExportProgress) => events.emit('progress', progress);

  /** The store's chunks, announcing rows as each one is taken. */
  async function tracked(input: AuditExportInput) {
    const { query, exportId } = auditExportSchema.parse(input);
    const audit = await store();
    const total = (await audit.search({ ...query, limit: 1 })).total;
    const chunks = audit.exportCsv(query);
    let rows = 0;
    emit({ exportId, rows, total, done: false });
    async function* counted(): AsyncGenerator<CsvChunk> {
      try {
        for await (const chunk of chunks) {
          yield chunk;
          rows += chunk.rows;
          if (chunk.rows) emit({ exportId, rows, total, done: false });
        }
        emit({ exportId, rows, total, done: true });
      } catch (err) {
        emit({ exportId, rows, total, done: true, error: (err as Error).message });
        throw err;
      }
    }
    return counted();
  }

  return {
    async saveCsv(input) {
      const choose = ctx.options.chooseExportFile;
      if (!choose)
        throw new AppFailure({
          code: 'not_configured',
          message: 'Here the export is a download: use the Export CSV link.',
        });
      const file = await choose(exportFileName());
      if (file === undefined) return { saved: false };
      const { rows } = await writeCsvFile(await tracked(input), file);
      return { saved: true, file, rows };
    },
    async downloadCsv(input) {
      const chunks = await tracked(input);
      async function* texts() {
        for await (const chunk of chunks) yield chunk.text;
      }
      return { fileName: exportFileName(), body: texts() };
    },
    onProgress(handler) {
      events.on('progress', handler);
      return () => events.off('progress', handler);
    },
  };
}

function exportFileName(): string {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `devicebench-audit-${stamp}.csv`;
}
