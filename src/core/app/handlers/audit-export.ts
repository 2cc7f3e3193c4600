// Exporting the audit log through the app: the export use case (usecases/audit-export.ts) into
// the file the main process asked for (Electron's save dialog) or down an HTTP response (the
// bench server), with its progress as the contract's events either way.
import { EventEmitter } from 'node:events';
import type { AuditStore } from '../../audit/store';
import {
  auditCsv,
  auditCsvText,
  saveAuditCsv,
  type ExportProgress,
} from '../../usecases/audit-export';
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

  /** The export's query, and its progress as the contract's events. */
  async function prepare(input: AuditExportInput) {
    const { query, exportId } = auditExportSchema.parse(input);
    return {
      query,
      audit: await store(),
      progress: (p: ExportProgress) => emit({ exportId, ...p }),
    };
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
      const { query, audit, progress } = await prepare(input);
      const { rows } = await saveAuditCsv(audit, query, file, progress);
      return { saved: true, file, rows };
    },
    async downloadCsv(input) {
      const { query, audit, progress } = await prepare(input);
      return {
        fileName: exportFileName(),
        body: auditCsvText(await auditCsv(audit, query, progress)),
      };
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
