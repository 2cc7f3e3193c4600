// PSDI reservations on a production line: stations reserving back to back from one sequence
// against PostgreSQL on loopback (a server of its own, default durability: fsync on), beside the
// SQLite store on disk (synchronous=FULL) in the same run. Reservations per second and p99
// latency with 1, 4 and 8 stations; each station is its own connection pool, all driven from
// this one process (docs/decisions.md, "Production line").
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRunError, type Benchmark } from './benchmark';
import { ms, table } from './format';
import { startLocalPostgres } from '../scripts/local-postgres';
import { openAuditStore, type AuditLocation } from '../src/core/audit/open-store';
import type { AuditStore, ReserveInput } from '../src/core/audit/store';
import { createPsdiAllocator } from '../src/core/provisioning/psdi';
import {
  PLATFORM_PSDI_CHARACTERISTIC_UUID,
  PLATFORM_PSDI_SERVICE_UUID,
} from '../src/core/platform/things/schema';

const STATIONS = [1, 4, 8];
const RUN_MS = 3_000;
const TARGET_PER_SECOND = 500;
const TARGET_P99_MS = 20;

const PRODUCT: ReserveInput['product'] = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e00004a1b4c8e9f0d000000000001',
  psdiServiceUuid: PLATFORM_PSDI_SERVICE_UUID,
  psdiCharacteristicUuid: PLATFORM_PSDI_CHARACTERISTIC_UUID,
};

interface Measured {
  engine: string;
  stations: number;
  perSecond: number;
  p99Ms: number;
}

export const line: Benchmark = {
  name: 'line',
  summary: `PSDI reservations/s and p99 latency with ${STATIONS.join(', ')} stations on PostgreSQL (target >= ${TARGET_PER_SECOND}/s, p99 <= ${TARGET_P99_MS} ms at 8) and SQLite`,
  async run(print) {
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-line-'));
    const pgDir = mkdtempSync(join(tmpdir(), 'devicebench-bench-line-pg-'));
    const server = await startLocalPostgres({ dir: pgDir });
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const results: Measured[] = [];
      for (const stations of STATIONS)
        results.push(
          await measure(
            'postgres',
            { kind: 'postgres', url: server.url },
            stations,
            `pg${stations}`,
          ),
        );
      for (const stations of STATIONS)
        results.push(
          await measure(
            'sqlite',
            { kind: 'local', file: join(dir, `line-${stations}.sqlite`) },
            stations,
            `sq${stations}`,
          ),
        );
      print(
        `line: back-to-back sequence reservations for ${RUN_MS / 1000} s per row; PostgreSQL ` +
          `on loopback (fsync on), SQLite on disk (synchronous=FULL); load average ` +
          `${loadBefore.toFixed(2)} at start`,
      );
      table([
        ['engine', 'stations', 'reservations/s', 'p99 ms'],
        ...results.map((r) => [r.engine, String(r.stations), r.perSecond.toFixed(0), ms(r.p99Ms)]),
      ]).forEach((l) => print(l));
      const eight = results.find((r) => r.engine === 'postgres' && r.stations === 8);
      if (!eight) throw new InvalidRunError('no PostgreSQL run with 8 stations');
      print(
        `line: PostgreSQL, 8 stations: ${eight.perSecond.toFixed(0)} reservations/s / target ${TARGET_PER_SECOND} = ` +
          `${(eight.perSecond / TARGET_PER_SECOND).toFixed(2)} ${eight.perSecond >= TARGET_PER_SECOND ? 'PASS' : 'FAIL'}`,
      );
      print(
        `line: PostgreSQL, 8 stations: p99 ${ms(eight.p99Ms)} ms / target ${TARGET_P99_MS} ms = ` +
          `${(eight.p99Ms / TARGET_P99_MS).toFixed(2)} ${eight.p99Ms <= TARGET_P99_MS ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      await server.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      rmSync(pgDir, { recursive: true, force: true });
    }
  },
};

async function measure(
  engine: string,
  location: AuditLocation,
  count: number,
  run: string,
): Promise<Measured> {
  const stores: AuditStore[] = [];
  for (let i = 0; i < count; i++)
    stores.push(await openAuditStore({ location, station: `${run}-${i}` }));
  const product = { ...PRODUCT, id: run };
  const allocator = createPsdiAllocator({ kind: 'sequence', prefix: 'L-', width: 7 }, 20);
  const latencies: number[] = [];
  const psdis = new Set<string>();
  let board = 0;
  const until = performance.now() + RUN_MS;
  const started = performance.now();
  try {
    await Promise.all(
      stores.map(async (store) => {
        while (performance.now() < until) {
          const n = ++board;
          const at = performance.now();
          const record = await store.reserve({
            product,
            board: { id: `b${n}`, address: `board-${n}` },
            profileId: 'devicebench-v1',
            psdiSource: 'tool',
            psdi: allocator,
          });
          latencies.push(performance.now() - at);
          psdis.add(record.psdi);
        }
      }),
    );
  } finally {
    for (const store of stores) await store.close();
  }
  const elapsed = performance.now() - started;
  if (psdis.size !== latencies.length)
    throw new InvalidRunError(`${engine}: ${latencies.length - psdis.size} PSDIs handed out twice`);
  latencies.sort((a, b) => a - b);
  return {
    engine,
    stations: count,
    perSecond: (latencies.length * 1000) / elapsed,
    p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
  };
}
