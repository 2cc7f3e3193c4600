// `devicebench audit export` as a child process on a log of 2,500 records: streamed to stdout,
// and to the file given with --csv (written beside it, then renamed), with the row count said.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { csvHeader } from '../../src/core/audit/csv-export';
import { openAuditStore } from '../../src/core/audit/open-store';
import { fillLog, PRODUCT } from '../core/audit/fixture';
import { runCli, tempDir } from './run-cli';

const COUNT = 2500;

describe('devicebench audit export', { timeout: 90_000 }, () => {
  const data = tempDir('devicebench-cli-export');
  beforeAll(async () => {
    const store = await openAuditStore({
      location: { kind: 'local', file: join(data, 'audit.sqlite') },
      station: 'cli-export',
    });
    try {
      await fillLog(store, COUNT);
    } finally {
      await store.close();
    }
  });

  it('streams every matching record to stdout and to the --csv file, oldest first', async () => {
    // The CLI writes into a folder that exists; it creates none (docs/decisions.md, hardening).
    const csv = join(data, 'audit.csv');
    const [piped, saved] = await Promise.all([
      runCli(['audit', 'export', '--product', PRODUCT.id, '--data-dir', data]),
      runCli(['audit', 'export', '--csv', csv, '--product', PRODUCT.id, '--data-dir', data]),
    ]);
    expect(piped.code, piped.stderr).toBe(0);
    const lines = piped.stdout.split('\r\n');
    expect(lines[0]).toBe(csvHeader.join(','));
    expect(lines.slice(1, -1)).toHaveLength(COUNT);
    expect(lines.at(-1)).toBe('');
    expect(lines[1]).toMatch(/^1,/);
    expect(lines[COUNT]).toMatch(new RegExp(`^${COUNT},`));

    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain(`${COUNT} records written to ${csv}`);
    expect(readFileSync(csv, 'utf8')).toBe(piped.stdout);
    expect(existsSync(`${csv}.part`)).toBe(false);
  });
});
