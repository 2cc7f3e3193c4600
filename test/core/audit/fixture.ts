// Audit-store test helpers: a fresh store per test on either engine, and product/board inputs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAuditStore, type AuditLocation } from '../../../src/core/audit/open-store';
import type { AuditStore, ProvisioningRecord, ReserveInput } from '../../../src/core/audit/store';
import type { TestPostgres } from '../../helpers/postgres';

export const PRODUCT: ReserveInput['product'] = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e00004a1b4c8e9f0d000000000001',
  psdiServiceUuid: 'e625601e9e554597a59876018a0d293d',
  psdiCharacteristicUuid: '26e2b12b85f04f3f9fdd91d114270e6e',
};

function boardNo(n: number): ReserveInput['board'] {
  const hex = n.toString(16).padStart(4, '0');
  return { id: `c28e1000${hex}`, address: `c2:8e:10:00:${hex.slice(0, 2)}:${hex.slice(2)}` };
}

export function reserveInput(
  n: number,
  psdi: ReserveInput['psdi'],
  product = PRODUCT,
): ReserveInput {
  return { product, board: boardNo(n), profileId: 'devicebench-v1', psdiSource: 'tool', psdi };
}

export type Engine = 'sqlite' | 'postgres';

export interface TempStore {
  engine: Engine;
  dir: string;
  location: AuditLocation;
  store: AuditStore;
  /** A manual clock the store reads: set `now.value`. */
  now: { value: number };
  /** Another store on the same log, as another station would open it. */
  open(station: string): Promise<AuditStore>;
  reopen(): Promise<AuditStore>;
  cleanup(): Promise<void>;
}

export async function tempStore(
  engine: Engine,
  postgres: TestPostgres | undefined,
  station = 'bench-1',
): Promise<TempStore> {
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-audit-'));
  let location: AuditLocation;
  if (engine === 'sqlite') location = { kind: 'local', file: join(dir, 'audit.db') };
  else {
    if (!postgres) throw new Error('a PostgreSQL test store needs usePostgres()');
    location = { kind: 'postgres', url: await postgres.database() };
  }
  const now = { value: Date.UTC(2026, 0, 5, 9, 0, 0) };
  const opened: AuditStore[] = [];
  const open = async (name: string) => {
    const store = await openAuditStore({ location, station: name, now: () => now.value });
    opened.push(store);
    return store;
  };
  const t: TempStore = {
    engine,
    dir,
    location,
    now,
    store: await open(station),
    open,
    async reopen() {
      await t.store.close();
      t.store = await open(station);
      return t.store;
    },
    async cleanup() {
      for (const store of opened) await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Engines the shared store suite runs on. */
export const ENGINES: Engine[] = ['sqlite', 'postgres'];

/**
 * Fills a log with `count` verified records (one reserved here, the rest copied in batches),
 * three to a millisecond so an export's keyset has ties to break. Returns the first record.
 */
export async function fillLog(store: AuditStore, count: number): Promise<ProvisioningRecord> {
  const reserved = await store.reserve(reserveInput(1, 'FILL-000001'));
  await store.markWritten(reserved.id);
  const first = await store.markVerified(reserved.id);
  const BATCH = 5000;
  for (let from = 2; from <= count; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - from + 1) }, (_, i) => {
      const n = from + i;
      return {
        ...first,
        id: n,
        createdAt: first.createdAt + Math.floor(n / 3),
        boardId: `fill${n}`,
        boardAddress: `fill:${n}`,
        psdi: `FILL-${String(n).padStart(6, '0')}`,
      };
    });
    await store.copyFrom('fill', batch);
  }
  return first;
}
