// No key made in a pairing is on disk in clear: a station pairs with a simulated board that
// shows a passkey and bonds, each side handing out its identity (LE Secure Connections, and LE
// legacy whose LTK crosses the link in SMP), writing its traces to a data folder as every
// session does; then every file of that folder and the `devicebench trace` export are scanned
// for the LTK and both IRKs in every form. With the data folder's "keep link keys" setting on
// and `--keep-keys`, the same scan finds the LTK: the scan can fail (docs/decisions/
// ble-and-hci.md, "Keys in traces").
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAdapterSpec, formatAdapterSpec } from '../../src/core/ble/adapter-spec';
import { TraceWriter } from '../../src/core/ble/hci/trace-store';
import { adapterTraceDir } from '../../src/core/ble/radio/multi-adapter-central';
import { openStation } from '../../src/core/ble/radio/open-station';
import { BondStore } from '../../src/core/ble/security-manager/bond-store';
import type { SecurityPolicy } from '../../src/core/ble/hci/noble-smp';
import { dataFolderBench, traceDirOf } from '../../src/core/usecases/station-files';
import { readTraceSettings, saveTraceSettings } from '../../src/core/usecases/bench/trace-settings';
import { filesUnder, keysFound } from '../helpers/key-scan';
import { runCli, tempDir, writeJson } from './run-cli';

const PASSKEY = 246_801;
const BOARD_IRK = '8899aabbccddeeff0011223344556677';
const SERVICE = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
const SECRET = 'a3c80009-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** A board as phones expect it: a display with a passkey, bonds, privacy (its IRK handed out). */
const boardFile = (mode: 'sc' | 'legacy') => ({
  boards: [
    {
      name: 'Key Keeper',
      address: 'd6:3a:41:00:43:01',
      advertising: { intervalMs: 20 },
      latency: { connectMs: 20, perOperationMs: 5 },
      gatt: [
        {
          uuid: SERVICE,
          characteristics: [
            {
              uuid: SECRET,
              properties: ['read'],
              permissions: { read: 'authenticate' },
              value: { utf8: 'sesame' },
            },
          ],
        },
      ],
      security: {
        mode,
        ioCapability: 'displayOnly',
        passkey: PASSKEY,
        privacy: { irk: BOARD_IRK },
      },
    },
  ],
});

/** The person at the station types the passkey the board shows. */
const policy: SecurityPolicy = {
  options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
  user: {
    displayPasskey: () => undefined,
    enterPasskey: () => Promise.resolve(PASSKEY),
    confirmNumber: () => Promise.resolve(false),
  },
};

/**
 * A session on the data folder's simulated bench (the board file in place of its boards), its
 * traces written as every session writes them, under the data folder's trace setting: connects,
 * pairs, reads, disconnects. Answers every key the pairing made, from the station's bond store
 * and the board's bond table.
 */
async function pairIn(dir: string, dataDir: string, mode: 'sc' | 'legacy') {
  const bonds = BondStore.inMemory('this test reads the keys');
  const { keepKeys } = await readTraceSettings(dataDir);
  const writers: TraceWriter[] = [];
  const station = await openStation([parseAdapterSpec('sim')], {
    bench: {
      ...dataFolderBench(dataDir),
      boardFiles: [writeJson(dir, `${mode}-board.json`, boardFile(mode))],
      setupFile: undefined,
    },
    bonds,
    security: policy,
    trace: (index, spec) => {
      const writer = new TraceWriter(
        adapterTraceDir(traceDirOf(dataDir), index, formatAdapterSpec(spec)),
        { keepKeys },
      );
      writers.push(writer);
      return (direction, packet) => writer.record(direction, packet);
    },
  });
  try {
    const { central, bench } = station;
    let id: string | undefined;
    const scan = await central.startScan({ name: 'Key Keeper' }, (ad) => (id ??= ad.id));
    for (let i = 0; id === undefined && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    await scan.stop();
    expect(id).toBeDefined();
    const link = await central.connect(id!);
    const info = await link.requestLink!({ kind: 'pair' });
    expect(info.security).toMatchObject({ encrypted: true, bonded: true, key: mode });
    expect(Buffer.from(await link.read(SERVICE, SECRET)).toString()).toBe('sesame');
    await link.disconnect();

    const [bond] = bonds.list();
    const sim = bench!.board(bench!.boards()[0]!.id)!;
    const stationIdentity = sim.bondWith(bond!.station)?.central;
    const keys = {
      LTK: Buffer.from(bond!.ltk, 'hex'),
      'board IRK': Buffer.from(bond!.irk ?? '', 'hex'),
      'station IRK': Buffer.from(stationIdentity?.irk ?? []),
    };
    // Every key is there to look for, and both sides agree on it.
    expect(Object.values(keys).map((k) => k.length)).toEqual([16, 16, 16]);
    expect(keys['board IRK'].toString('hex')).toBe(BOARD_IRK);
    expect(Buffer.from(sim.bondWith(bond!.station)!.ltk)).toEqual(keys.LTK);
    return keys;
  } finally {
    await station.central.close();
    station.bench?.close();
    for (const writer of writers) writer.close();
  }
}

/** `devicebench trace` of the last 15 minutes of the data folder into `out`. */
async function exported(dataDir: string, out: string, ...flags: string[]) {
  const run = await runCli([
    'trace',
    '--since',
    '15m',
    '--out',
    out,
    '--json',
    '--data-dir',
    dataDir,
    ...flags,
  ]);
  expect(run.code, run.stderr).toBe(0);
  return { report: JSON.parse(run.stdout), notes: run.stderr };
}

describe('no key made in a pairing on disk in clear', { timeout: 60_000 }, () => {
  it.each(['sc', 'legacy'] as const)(
    '%s passkey pairing that bonds both ways: the data folder and the trace export hold none',
    async (mode) => {
      const dir = tempDir(`trace-keys-${mode}`);
      const dataDir = join(dir, 'data');
      const keys = await pairIn(dir, dataDir, mode);
      const out = join(dir, 'export.btsnoop');
      const { report, notes } = await exported(dataDir, out);
      // SC: the LTK in LE Enable Encryption, the two IRKs; legacy adds the LTK in SMP.
      expect(report.keysRedacted).toBe(mode === 'sc' ? 3 : 4);
      expect(report.keysInClear).toBe(0);
      expect(notes).toContain('link keys redacted; --keep-keys keeps them');
      const files = [...filesUnder(dataDir), out];
      expect(files.some((f) => f.endsWith('.btsnoop') && f !== out)).toBe(true);
      expect(keysFound(files, keys, dir)).toEqual([]);
      for (const trace of files.filter((f) => f.endsWith('.btsnoop')))
        expect(statSync(trace).mode & 0o777, trace).toBe(0o600);
      // The trace says what it left out, where the keys were.
      expect(readFileSync(out).toString('latin1')).toContain(
        'DeviceBench key redacted: the LTK in LE Enable Encryption',
      );
    },
  );

  it('with "keep link keys" on and --keep-keys, the LTK is in the trace, and the export says so', async () => {
    const dir = tempDir('trace-keys-kept');
    const dataDir = join(dir, 'data');
    await saveTraceSettings(dataDir, { keepKeys: true });
    const keys = await pairIn(dir, dataDir, 'legacy');
    const kept = join(dir, 'kept.btsnoop');
    const { report, notes } = await exported(dataDir, kept, '--keep-keys');
    expect(report).toMatchObject({ keysRedacted: 0, keysInClear: 4 });
    expect(notes).toContain(
      'this trace holds the link keys in clear (4 link keys): anyone with it can decrypt the link',
    );
    expect(keysFound([kept], { LTK: keys.LTK }, dir)).toEqual(['LTK as bytes in kept.btsnoop']);
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    // Without --keep-keys the same traces export without them.
    const redacted = join(dir, 'redacted.btsnoop');
    expect((await exported(dataDir, redacted)).report).toMatchObject({
      keysRedacted: 4,
      keysInClear: 0,
    });
    expect(keysFound([redacted], keys, dir)).toEqual([]);
  });

  it('--keep-keys on traces recorded without keys says there is none to keep', async () => {
    const dir = tempDir('trace-keys-none');
    const dataDir = join(dir, 'data');
    await pairIn(dir, dataDir, 'sc');
    const { report, notes } = await exported(dataDir, join(dir, 'x.btsnoop'), '--keep-keys');
    expect(report).toMatchObject({ keysRedacted: 3, keysInClear: 0 });
    expect(notes).toContain('no link key to keep: the traces recorded the window');
  });
});
