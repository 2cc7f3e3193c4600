// A simulated bench on the real clock with a real noble over it, an audit store in a temp
// folder and a trial product: what the provisioning tests run on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { TraceSink } from '../../../src/core/ble/hci/tap';
import type { BondStore } from '../../../src/core/ble/security-manager/bond-store';
import { createSimulatedCentral } from '../../../src/core/ble/radio/sim-central';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import type { Advertisement, BleCentral } from '../../../src/core/ble/port';
import { openAuditStore } from '../../../src/core/audit/open-store';
import type { AuditStore } from '../../../src/core/audit/store';
import { builtInProfiles } from '../../../src/core/provisioning/profiles';
import type { ProvisioningProfile } from '../../../src/core/ble/provisioning-profile';
import { createPsdiAllocator } from '../../../src/core/audit/psdi';
import {
  provisionBoard,
  type ProvisionBoardOptions,
} from '../../../src/core/provisioning/workflow';
import {
  ProvisionError,
  type ProductTarget,
  type TimingInput,
} from '../../../src/core/provisioning/steps';

const profiles = new Map(builtInProfiles().map((p) => [p.id, p]));
export const V1 = profiles.get('devicebench-v1') as ProvisioningProfile;
export const DEVICE_PSDI = profiles.get('devicebench-v1-device-psdi') as ProvisioningProfile;

export const PRODUCT: ProductTarget = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
  psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
  psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
};

/** Tight timeouts so fault tests end in seconds; the sim's boards answer in milliseconds. */
export const FAST: TimingInput = {
  select: { timeoutMs: 2_000, retries: 0 },
  connect: { timeoutMs: 1_000, retries: 2 },
  discover: { timeoutMs: 1_000, retries: 0 },
  read: { timeoutMs: 1_000, retries: 0 },
  write: { timeoutMs: 1_000, retries: 2 },
  commit: { timeoutMs: 1_000, retries: 1 },
  verify: { timeoutMs: 3_000, retries: 1 },
  retryDelayMs: 20,
};

/** A fast blank board on the v1 profile; `n` numbers the address. */
export function blankBoard(n: number, overrides: Partial<BoardSpecInput> = {}): BoardSpecInput {
  const hex = n.toString(16).padStart(2, '0');
  return {
    name: `DB Test ${n}`,
    address: `c2:8e:20:00:00:${hex}`,
    advertising: { intervalMs: 20, rssi: { mean: -50, noise: 0 } },
    latency: { connectMs: 15, perOperationMs: 3 },
    provisioning: { profile: 'devicebench-v1', rebootMs: 50 },
    ...overrides,
  };
}

export interface Rig {
  dir: string;
  dbFile: string;
  bench: SimulatedBench;
  central: NobleCentral;
  store: AuditStore;
  close(): Promise<void>;
}

export async function rig(
  boards: BoardSpecInput[],
  options: { stateFile?: string; dir?: string; trace?: TraceSink; bonds?: BondStore } = {},
): Promise<Rig> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'devicebench-prov-'));
  const bench = new SimulatedBench({ seed: 11, stateFile: options.stateFile });
  for (const b of boards) bench.addBoard(b, 'test');
  const central = createSimulatedCentral(bench, { trace: options.trace, bonds: options.bonds });
  const dbFile = join(dir, 'audit.db');
  const store = await openAuditStore({
    location: { kind: 'local', file: dbFile },
    station: 'test-bench',
  });
  return {
    dir,
    dbFile,
    bench,
    central,
    store,
    async close() {
      await central.close();
      bench.close();
      await store.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first advertisement from `address` (with any of `serviceUuids`), within `timeoutMs`. */
export async function advertisementOf(
  central: BleCentral,
  address: string,
  serviceUuids: string[] = [V1.service],
  timeoutMs = 3_000,
): Promise<Advertisement> {
  let found: (ad: Advertisement) => void = () => {};
  const seen = new Promise<Advertisement>((resolve) => (found = resolve));
  const scan = await central.startScan({ serviceUuids }, (ad) => {
    if (ad.address === address) found(ad);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      seen,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${address} did not advertise`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await scan.stop();
  }
}

/** PSDIs held by more than one live record of a product: must always be empty. */
export async function duplicateHeldPsdis(
  store: AuditStore,
  productId = PRODUCT.id,
): Promise<string[]> {
  const held = (await store.search({ productId, limit: 500 })).items
    .filter((r) => r.psdiHeld)
    .map((r) => r.psdi);
  return held.filter((p, i) => held.indexOf(p) !== i);
}

/** The plan the workflow tests provision from: DB-0001, DB-0002, … */
export const sequence = () =>
  createPsdiAllocator({ kind: 'sequence', prefix: 'DB-', width: 4 }, 20);

/** One board provisioned on the rig with the V1 profile, unless `extra` says otherwise. */
export async function provisionOn(
  r: Rig,
  address: string,
  extra: Partial<ProvisionBoardOptions> = {},
) {
  const board = await advertisementOf(r.central, address, [(extra.profile ?? V1).service]);
  return provisionBoard({
    central: r.central,
    store: r.store,
    profile: V1,
    product: PRODUCT,
    board,
    psdi: sequence(),
    timing: FAST,
    ...extra,
  });
}

/** The ProvisionError a run ended with (the test fails if it ended otherwise). */
export async function failure(promise: Promise<unknown>): Promise<ProvisionError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProvisionError);
  return err as ProvisionError;
}
