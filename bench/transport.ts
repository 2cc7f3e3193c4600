// The H4 path's cost: one board provisioned over `tcp:` to `devicebench sim serve` (the bench in
// its own process, every HCI packet H4-framed over a loopback socket) against the same board
// provisioned on the in-process sim. Both benches use the real clock and the same boards, so
// what differs is the framing, the socket and the second process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { ms, table } from './format';
import { startServerProcess, type ServerProcess } from './server-process';
import { parseAdapterSpec, type AdapterSpec } from '../src/core/ble/adapter-spec';
import { NoAdapterCentral } from '../src/core/ble/radio/no-adapter-central';
import { openCentral } from '../src/core/ble/radio/open-central';
import type { Advertisement, BleCentral } from '../src/core/ble/port';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../src/core/ble/sim/board-schema';
import { openAuditStore } from '../src/core/audit/open-store';
import { builtInProfiles, gattProfiles } from '../src/core/provisioning/profiles';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import type { ProductTarget } from '../src/core/provisioning/steps';
import { provisionBoard } from '../src/core/provisioning/workflow';

const TARGET = 1.05;
const BOARDS = 12;

const BOARD: BoardSpecInput = {
  name: 'Bench H4 {n}',
  address: 'c6:00:00:00:00:01',
  count: BOARDS,
  advertising: { intervalMs: 100, rssi: { mean: -55, noise: 0 } },
  latency: { connectMs: 40, perOperationMs: 8, jitterMs: 0 },
  provisioning: { profile: 'devicebench-v1', rebootMs: 200 },
};

const PRODUCT: ProductTarget = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
  psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
  psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
};
const profile = gattProfiles(builtInProfiles()).find((p) => p.id === 'devicebench-v1');

/**
 * `devicebench sim serve` in its own process (server-process.ts: the pid stopped is the server's
 * own, and it ends with this process); its H4 spec and how to stop it.
 */
async function simServe(dir: string, boardFile: string): Promise<{ spec: string } & ServerProcess> {
  const served = await startServerProcess('sim serve', 'src/cli/main.ts', [
    'sim',
    'serve',
    '--h4',
    'tcp:127.0.0.1:0',
    '--board',
    boardFile,
    '--data-dir',
    dir,
  ]).catch((err: unknown) => {
    throw new InvalidRunError((err as Error).message);
  });
  return { ...served, spec: (served.banner as { h4: string }).h4 };
}

async function provisionEach(
  dir: string,
  label: string,
  spec: AdapterSpec,
  bench?: SimulatedBench,
) {
  const central = await openCentral(spec, { bench });
  if (central instanceof NoAdapterCentral) throw new InvalidRunError(`${label}: ${central.reason}`);
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `${label}.db`) },
    station: 'bench',
  });
  const psdi = createPsdiAllocator(
    { kind: 'sequence', prefix: `${label.toUpperCase()}-`, width: 4 },
    20,
  );
  const times: number[] = [];
  try {
    for (let i = 1; i <= BOARDS; i++) {
      const address = `c6:00:00:00:00:${i.toString(16).padStart(2, '0')}`;
      const board = await advertisement(central, address);
      const { durationMs } = await provisionBoard({
        central,
        store,
        profile: profile!,
        product: PRODUCT,
        board,
        psdi,
      });
      times.push(durationMs);
    }
    return times;
  } finally {
    await central.close();
    await store.close();
  }
}

function advertisement(central: BleCentral, address: string): Promise<Advertisement> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new InvalidRunError(`${address} did not advertise`)),
      5_000,
    );
    const scan = central.startScan({ serviceUuids: [profile!.service] }, (ad) => {
      if (ad.address !== address) return;
      clearTimeout(timer);
      void scan.then((s) => s.stop()).then(() => resolve(ad), reject);
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const transport: Benchmark = {
  name: 'transport',
  summary: `one board provisioned over tcp: to \`sim serve\` / on the in-process sim (target <= ${TARGET})`,
  async run(print) {
    if (!profile) throw new Error('the devicebench-v1 profile is missing');
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-h4-'));
    let served: ServerProcess | undefined;
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const bench = new SimulatedBench({ seed: 1 });
      bench.addBoard(BOARD);
      let local: number[];
      try {
        local = await provisionEach(dir, 'sim', { kind: 'sim' }, bench);
      } finally {
        bench.close();
      }
      const boardFile = join(dir, 'boards.json');
      writeFileSync(boardFile, JSON.stringify({ boards: [BOARD] }));
      const serving = await simServe(join(dir, 'serve'), boardFile);
      served = serving;
      const remote = await provisionEach(dir, 'tcp', parseAdapterSpec(serving.spec));
      print(
        `transport: devicebench-v1, ${BOARDS} boards each way (connect 40 ms, 8 ms per ATT answer, ` +
          `reboot 200 ms), real clock; tcp: to \`sim serve\` in a child process; load average ` +
          `${loadBefore.toFixed(2)} at start`,
      );
      table([
        ['board', 'in-process sim ms', 'tcp: ms', 'ratio'],
        ...local.map((l, i) => [String(i + 1), ms(l), ms(remote[i]!), (remote[i]! / l).toFixed(3)]),
      ]).forEach((line) => print(line));
      const ratio = median(remote) / median(local);
      const shown = (Math.ceil(ratio * 1000) / 1000).toFixed(3);
      print(
        `transport: tcp: / in-process median board time = ${shown} (target <= ${TARGET}) ${ratio <= TARGET ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      await served?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
