// The provisioning benchmark's floor (bench/provisioning-model.ts) is the link's time, not the
// machine's: the same boards read the same modelled time whether the audit store answers at
// once or late, as a loaded disk or a busy core makes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  benchProfile,
  provisionAtOnce,
  provisionEach,
  REBOOT_MS,
  secureRun,
  spec,
} from '../../bench/provisioning-model';
import { openAuditStore } from '../../src/core/audit/open-store';
import type { AuditStore } from '../../src/core/audit/store';
import { ManualSimClock } from '../../src/core/ble/sim/manual-clock';

const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every answer of the store comes `lateMs` late, after holding the thread for `busyMs`. */
function slowed(store: AuditStore, lateMs: number, busyMs: number): AuditStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer) =>
            new Promise((resolve) => {
              const until = performance.now() + busyMs;
              while (performance.now() < until);
              setTimeout(() => resolve(answer), lateMs);
            }),
        );
      };
    },
  });
}

async function modelled(name: string, wrap: (store: AuditStore) => AuditStore, secure = false) {
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `${name}.db`) },
    station: 'bench',
  });
  try {
    return await provisionEach(
      wrap(store),
      new ManualSimClock(1_700_000_000_000),
      2,
      secure ? secureRun() : undefined,
    );
  } finally {
    await store.close();
  }
}

it(
  'reads the same modelled time per board with a prompt store and a slow one',
  { timeout: 30_000 },
  async () => {
    const prompt = await modelled('prompt', (store) => store);
    const slow = await modelled('slow', (store) => slowed(store, 40, 5));
    expect(slow).toEqual(prompt);
    for (const board of prompt) {
      // The board's reboot and at least a connection event per ATT exchange are in it; the
      // store's 40 ms answers (a dozen per board) are not.
      expect(board.ms).toBeGreaterThan(REBOOT_MS);
      expect(board.events).toBeGreaterThan(10);
    }
  },
);

it(
  'holds the SMP exchange and the encryption procedures on the secure path, the same with a slow store',
  { timeout: 30_000 },
  async () => {
    const plain = await modelled('plain', (store) => store);
    const secure = await modelled('secure', (store) => store, true);
    expect(await modelled('secure-slow', (store) => slowed(store, 40, 5), true)).toEqual(secure);
    for (const [i, board] of secure.entries()) {
      expect(plain[i]!.securityMs).toBe(0);
      // Passkey Entry's twenty rounds, each a confirm and a random both ways: at least two
      // connection events a round (DEFAULT_ADAPTER_PROFILE: 15 ms).
      expect(board.securityMs).toBeGreaterThanOrEqual(20 * 2 * 15);
      // The pairing and verify's encryption with the bond come on top of the plain path.
      expect(board.ms).toBeGreaterThanOrEqual(plain[i]!.ms + board.securityMs * 0.9);
    }
  },
);

it(
  'counts what links share on one controller: two boards at once take longer than one, less than two in turn',
  { timeout: 30_000 },
  async () => {
    const store = await openAuditStore({
      location: { kind: 'local', file: join(dir, 'at-once.db') },
      station: 'bench',
    });
    try {
      const run = { board: spec, profile: benchProfile() };
      const at = (count: number, links: number) =>
        provisionAtOnce(store, new ManualSimClock(1_700_000_000_000), count, links, run);
      const one = await at(1, 1);
      const inTurn = await at(2, 1);
      const together = await at(2, 2);
      // Two links are not twice one: the second board's connections wait for the first's (one LE
      // Create Connection at a time), and their events take turns on the radio.
      expect(together).toBeGreaterThan(one + 30);
      expect(together).toBeLessThan(inTurn * 0.75);
    } finally {
      await store.close();
    }
  },
);
