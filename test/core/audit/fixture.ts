// Audit-store test helpers: a fresh store file per test and product/board inputs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAuditStore, type AuditStore, type ReserveInput } from '../../../src/core/audit/store';

export const PRODUCT: ReserveInput['product'] = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e00004a1b4c8e9f0d000000000001',
  psdiServiceUuid: 'e625601e9e554597a59876018a0d293d',
  psdiCharacteristicUuid: '26e2b12b85f04f3f9fdd91d114270e6e',
};

export function boardNo(n: number): ReserveInput['board'] {
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

export interface TempStore {
  dir: string;
  file: string;
  store: AuditStore;
  /** A manual clock the store reads: set `now.value`. */
  now: { value: number };
  reopen(): AuditStore;
  cleanup(): void;
}

export function tempStore(station = 'bench-1'): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'devicebench-audit-'));
  const file = join(dir, 'audit.db');
  const now = { value: Date.UTC(2026, 0, 5, 9, 0, 0) };
  const open = () => openAuditStore({ file, station, now: () => now.value });
  const t: TempStore = {
    dir,
    file,
    now,
    store: open(),
    reopen() {
      t.store.close();
      t.store = open();
      return t.store;
    },
    cleanup() {
      try {
        t.store.close();
      } catch {
        /* already closed */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}
