// The audit log as CSV for a spreadsheet or a factory system: one header row, one row per
// record, times in ISO 8601 UTC. An export is a stream of chunks read by keyset, so a log of a
// million records costs the same memory as one of a thousand (docs/decisions.md, "Audit log off
// the window's thread, exports as streams").
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { describeRecordEvent, type ProvisioningRecord } from './records';

const COLUMNS: { header: string; value: (r: ProvisioningRecord) => string | number }[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'created_at', value: (r) => iso(r.createdAt) },
  { header: 'updated_at', value: (r) => iso(r.updatedAt) },
  { header: 'written_at', value: (r) => iso(r.writtenAt) },
  { header: 'verified_at', value: (r) => iso(r.verifiedAt) },
  { header: 'product_id', value: (r) => text(r.productId) },
  { header: 'product_name', value: (r) => text(r.productName) },
  { header: 'service_uuid', value: (r) => r.serviceUuid },
  { header: 'psdi_service_uuid', value: (r) => r.psdiServiceUuid },
  { header: 'psdi_characteristic_uuid', value: (r) => r.psdiCharacteristicUuid },
  { header: 'board_id', value: (r) => text(r.boardId) },
  { header: 'board_address', value: (r) => text(r.boardAddress) },
  { header: 'board_name', value: (r) => text(r.boardName ?? '') },
  { header: 'psdi', value: (r) => text(r.psdi) },
  { header: 'psdi_source', value: (r) => r.psdiSource },
  { header: 'psdi_held', value: (r) => (r.psdiHeld ? 'yes' : 'no') },
  { header: 'profile_id', value: (r) => r.profileId },
  { header: 'image_hash', value: (r) => r.imageHash ?? '' },
  { header: 'station', value: (r) => text(r.station) },
  { header: 'state', value: (r) => r.state },
  { header: 'result', value: (r) => r.result },
  { header: 'failed_step', value: (r) => r.failedStep ?? '' },
  { header: 'error', value: (r) => text(r.error ?? '') },
  { header: 'attempts', value: (r) => r.attempts },
  { header: 'psdi_returned', value: (r) => (r.psdiReturned ? 'yes' : 'no') },
  { header: 'history', value: (r) => text(r.history.map(describeRecordEvent).join(' | ')) },
];

export const csvHeader = COLUMNS.map((c) => c.header);

/** Records an export reads per query: the unit of its memory and of its progress. */
export const EXPORT_CHUNK_ROWS = 1000;

/** Where the next chunk starts: export order is `created_at, id`, oldest first. */
export interface ExportCursor {
  createdAt: number;
  id: number;
}

/** One piece of an export's text; `rows` records in it (0 for the header). */
export interface CsvChunk {
  text: string;
  rows: number;
}

/** A chunk of records as CSV, with the cursor after its last record. */
export interface CsvPage extends CsvChunk {
  last?: ExportCursor;
}

export function csvPage(records: readonly ProvisioningRecord[]): CsvPage {
  const last = records.at(-1);
  return {
    text: records.length ? csvLines(records.map((r) => COLUMNS.map((c) => c.value(r)))) : '',
    rows: records.length,
    last: last && { createdAt: last.createdAt, id: last.id },
  };
}

/**
 * The header, then one chunk per page until a short page: `next` reads the records after the
 * cursor (an engine's keyset query), so nothing but one page is ever held.
 */
export async function* csvChunks(
  next: (after: ExportCursor | undefined) => Promise<CsvPage>,
): AsyncGenerator<CsvChunk> {
  yield { text: csvLines([csvHeader]), rows: 0 };
  let after: ExportCursor | undefined;
  for (;;) {
    const page = await next(after);
    if (page.rows) yield { text: page.text, rows: page.rows };
    if (page.rows < EXPORT_CHUNK_ROWS || !page.last) return;
    after = page.last;
  }
}

/** A whole export as one string: for small logs and tests, never for what a user exports. */
export async function collectCsv(chunks: AsyncIterable<CsvChunk>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk.text;
  return text;
}

/**
 * Streams an export into `file`: written beside it and renamed when complete, so the file the
 * user picked is never left half written; `onProgress` hears the rows written after each chunk.
 */
export async function writeCsvFile(
  chunks: AsyncIterable<CsvChunk>,
  file: string,
  onProgress?: (rows: number) => void,
): Promise<{ rows: number }> {
  const partial = `${file}.part`;
  let rows = 0;
  async function* texts() {
    for await (const chunk of chunks) {
      yield chunk.text;
      rows += chunk.rows;
      if (chunk.rows) onProgress?.(rows);
    }
  }
  try {
    await pipeline(Readable.from(texts()), createWriteStream(partial));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { rows };
}

function csvLines(rows: (string | number)[][]): string {
  return stringify(rows, { record_delimiter: '\r\n' });
}

function iso(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

/**
 * Free text (names, PSDIs, errors) that a spreadsheet would run as a formula gets a leading
 * apostrophe, the usual CSV-injection guard; everything else is exported as it is.
 */
function text(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
