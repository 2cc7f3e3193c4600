// `devicebench trace` as a child process: a scan writes its HCI traffic to the data folder, and
// the command cuts the window out as one btsnoop file; bad windows and files are refused.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBtsnoop } from '../../src/core/ble/hci/btsnoop';
import { runCli, tempDir } from './run-cli';

describe('devicebench trace', { timeout: 60_000 }, () => {
  it('writes the HCI traffic of a scan as a btsnoop file, and refuses bad windows', async () => {
    const dir = tempDir('trace');
    const data = join(dir, 'data');
    const scan = await runCli(['scan', '--for', '1', '--data-dir', data]);
    expect(scan.code, scan.stderr).toBe(0);

    const out = join(dir, 'scan.btsnoop');
    const trace = await runCli([
      'trace',
      '--since',
      '5m',
      '--out',
      out,
      '--json',
      '--data-dir',
      data,
    ]);
    expect(trace.code, trace.stderr).toBe(0);
    const { records } = parseBtsnoop(readFileSync(out));
    expect(JSON.parse(trace.stdout)).toMatchObject({ file: out, packets: records.length });
    const hex = records.map((r) => `${r.direction}:${Buffer.from(r.data).toString('hex')}`);
    // noble's LE Set Scan Enable, and LE Advertising Reports from the bench.
    expect(hex.some((h) => h.startsWith('sent:010c2002'))).toBe(true);
    expect(hex.filter((h) => /^received:043e..02/.test(h)).length).toBeGreaterThan(3);

    const bad = join(dir, 'bad.btsnoop');
    for (const [args, field] of [
      [['--since', 'yesterday-ish', '--out', bad], '--since'],
      [['--since', '5m', '--until', '10m', '--out', bad], '--until'],
      [['--since', '5m', '--out', join(dir, 'bad.pcap')], '--out'],
    ] as const) {
      const refused = await runCli(['trace', ...args, '--data-dir', data]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(field);
    }
    expect(existsSync(bad)).toBe(false);
  });
});
