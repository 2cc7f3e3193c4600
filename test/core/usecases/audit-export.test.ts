// The audit export both front ends stand on: the filter's count first, the rows after each
// chunk, one `done` at the end (with the error when the store fails part way), and a file that is
// whole or absent.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCsv, csvHeader, type CsvChunk } from '../../../src/core/audit/csv-export';
import type { AuditStore } from '../../../src/core/audit/store';
import {
  auditCsv,
  auditCsvText,
  saveAuditCsv,
  type ExportProgress,
} from '../../../src/core/usecases/audit-export';
import { fillLog, PRODUCT, tempStore, type TempStore } from '../audit/fixture';

const COUNT = 2500;

describe('the audit export', () => {
  let log: TempStore;
  beforeAll(async () => {
    log = await tempStore('sqlite', undefined);
    await fillLog(log.store, COUNT);
  });
  afterAll(() => log.cleanup());

  it('reports the count, the rows after each chunk and the end, and yields every record', async () => {
    const progress: ExportProgress[] = [];
    const chunks = await auditCsv(log.store, { productId: PRODUCT.id }, (p) => progress.push(p));
    expect(progress).toEqual([{ rows: 0, total: COUNT, done: false }]);
    const text = await collectCsv(chunks);
    expect(text.split('\r\n')[0]).toBe(csvHeader.join(','));
    expect(text.split('\r\n').slice(1, -1)).toHaveLength(COUNT);
    expect(progress).toEqual([
      { rows: 0, total: COUNT, done: false },
      { rows: 1000, total: COUNT, done: false },
      { rows: 2000, total: COUNT, done: false },
      { rows: 2500, total: COUNT, done: false },
      { rows: 2500, total: COUNT, done: true },
    ]);
  });

  it('writes the file whole and gives the text chunk by chunk, the same CSV both ways', async () => {
    const file = join(log.dir, 'export.csv');
    const { rows } = await saveAuditCsv(log.store, { productId: PRODUCT.id }, file);
    expect(rows).toBe(COUNT);
    expect(existsSync(`${file}.part`)).toBe(false);
    let text = '';
    for await (const piece of auditCsvText(await auditCsv(log.store, { productId: PRODUCT.id })))
      text += piece;
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('ends with the error when the store fails part way, and leaves no file', async () => {
    const failing: AuditStore = Object.create(log.store, {
      exportCsv: {
        value: async function* (): AsyncGenerator<CsvChunk> {
          yield { text: 'header\r\n', rows: 0 };
          yield { text: 'one\r\n', rows: 1 };
          throw new Error('the log stopped answering');
        },
      },
    }) as AuditStore;
    const progress: ExportProgress[] = [];
    const file = join(log.dir, 'broken.csv');
    await expect(
      saveAuditCsv(failing, { productId: PRODUCT.id }, file, (p) => progress.push(p)),
    ).rejects.toThrow('the log stopped answering');
    expect(progress.at(-1)).toEqual({
      rows: 1,
      total: COUNT,
      done: true,
      error: 'the log stopped answering',
    });
    expect(existsSync(file) || existsSync(`${file}.part`)).toBe(false);
  });
});
