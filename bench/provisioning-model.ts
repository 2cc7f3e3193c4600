// One board after another provisioned on the simulated bench, as `npm run bench -- provisioning`
// runs them (bench/provisioning.ts): on the wall clock for the tool's time, or on a manual clock
// for the link model's time. On the manual clock time moves only while the tool waits on the
// bench — never while the audit store is at work — so the model counts connection events, the
// board's answers, its reboot and its advertising, and reads the same on a busy machine as on an
// idle one (docs/decisions.md, "Test suite time"). On the secure path the boards pair as a
// Zephyr board built for phones does (LE Secure Connections, a displayed passkey, bonds kept) and
// the product needs level 4: the model then holds the SMP exchange's connection events, the
// link layer's encryption procedures and verify's encryption with the bond, timed as the bench
// times them.
import type { Clock, Timer } from '../src/core/async/clock';
import type { AuditStore } from '../src/core/audit/store';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import type { Advertisement, BleCentral } from '../src/core/ble/port';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../src/core/ble/sim/board-schema';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import { builtInProfiles } from '../src/core/provisioning/profiles';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import type { PsdiAllocator } from '../src/core/audit/store';
import type { ProductTarget } from '../src/core/provisioning/steps';
import { provisionBoard, type ImageFlash } from '../src/core/provisioning/workflow';
import type {
  AnyProvisioningProfile,
  ProvisioningProfile,
} from '../src/core/ble/provisioning-profile';
import { BondStore } from '../src/core/ble/security-manager/bond-store';
import type { SecurityPolicy } from '../src/core/ble/hci/noble-smp';
import { securityWindows } from './security-windows';

export const REBOOT_MS = 200;
/** The model's step: what it adds while the tool has something left to do on the bench. */
const STEP_MS = 0.1;

/** The passkey the secure boards show (Zephyr's CONFIG_BT_FIXED_PASSKEY), typed at the station. */
const PASSKEY = 246_801;

// A typical nRF52/ESP32 prototype; no jitter, so the modelled time of a path is exact.
export const spec = (address: string, count: number, secure = false): BoardSpecInput => ({
  name: 'Bench Prov {n}',
  address,
  count,
  advertising: { intervalMs: 100, rssi: { mean: -55, noise: 0 } },
  latency: { connectMs: 40, perOperationMs: 8, jitterMs: 0 },
  provisioning: { profile: secure ? secureProfile() : 'devicebench-v1', rebootMs: REBOOT_MS },
  ...(secure && {
    security: {
      mode: 'sc' as const,
      ioCapability: 'displayOnly' as const,
      passkey: PASSKEY,
      bonding: { allowUnauthOverwrite: false },
    },
  }),
});

export const PRODUCT: ProductTarget = {
  id: '3000000001',
  name: 'Bench sensor',
  serviceUuid: '9d5e0000-4a1b-4c8e-9f0d-000000000001',
  psdiServiceUuid: 'e625601e-9e55-4597-a598-76018a0d293d',
  psdiCharacteristicUuid: '26e2b12b-85f0-4f3f-9fdd-91d114270e6e',
};

export function benchProfile() {
  const profile = builtInProfiles().find((p) => p.id === 'devicebench-v1');
  if (!profile) throw new Error('the devicebench-v1 profile is missing');
  return profile;
}

/** devicebench-v1 with the PSDI behind level 4, and the product needing level 4. */
function secureProfile(): ProvisioningProfile {
  const profile = benchProfile();
  if (profile.kind === 'mcumgr-settings') throw new Error('devicebench-v1 is a GATT profile');
  return { ...profile, psdi: { ...profile.psdi, readPermission: 'sc' }, security: { level: 4 } };
}

/** The station as a phone pairs: keyboard, MITM, Secure Connections, bonds kept. */
export const PHONE_LIKE: SecurityPolicy = {
  options: { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
  user: {
    displayPasskey: () => undefined,
    enterPasskey: () => Promise.resolve(PASSKEY),
    confirmNumber: () => Promise.resolve(true),
  },
};

export interface BoardTime {
  /** On the manual clock the modelled time; on any other clock the run's own duration. */
  ms: number;
  /** Connection events that carried the host's data. */
  events: number;
  /** Time inside the SMP exchange and the encryption procedures (bench/security-windows.ts). */
  securityMs: number;
}

/**
 * The store as the tool sees it, and whether one of its calls is still being answered: on the
 * model's clock those waits are the machine's (disk, worker thread), not the link's.
 */
function watchStore(store: AuditStore): {
  store: AuditStore;
  busy(): boolean;
  idle(): Promise<void>;
} {
  let inFlight = 0;
  let waiting: (() => void)[] = [];
  const finished = () => {
    inFlight -= 1;
    if (inFlight > 0) return;
    const wake = waiting;
    waiting = [];
    wake.forEach((resolve) => resolve());
  };
  const watched = new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        if (result instanceof Promise) {
          inFlight += 1;
          result.then(finished, finished);
        }
        return result;
      };
    },
  });
  return {
    store: watched,
    busy: () => inFlight > 0,
    idle: () =>
      inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve)),
  };
}

/** What the boards are and what the tool does to each: by default `spec` and devicebench-v1. */
export interface ModelRun {
  board: (address: string, count: number) => BoardSpecInput;
  profile: AnyProvisioningProfile;
  /** Each board flashed before it is provisioned (a batch's image). */
  flash?: (central: BleCentral) => ImageFlash;
  /** The station pairs as a phone does (boards and a profile that need it: `secureRun`). */
  secure?: boolean;
}

/** The phone-like path: boards that need LE Secure Connections and bonds, a profile at level 4. */
export function secureRun(): ModelRun {
  return {
    board: (address, count) => spec(address, count, true),
    profile: secureProfile(),
    secure: true,
  };
}

/** A fresh bench of `count` boards and a central on it, on `clock`; `drive` waits on the bench. */
function modelBench(auditStore: AuditStore, clock: Clock, count: number, run: ModelRun) {
  const manual = clock instanceof ManualSimClock ? clock : undefined;
  const bench = new SimulatedBench({ seed: 1, clock });
  const boards = bench.addBoard(run.board('c4:00:00:00:00:01', count));
  const counts = { events: 0 };
  const security = securityWindows(() => clock.now());
  const central = createSimulatedCentral(bench, {
    trace: (direction, packet) => {
      // Number Of Completed Packets marks each connection event that carried the host's data.
      if (direction === 'received' && packet[0] === 0x04 && packet[1] === 0x13) counts.events++;
      security.record(direction, packet);
    },
    ...(run.secure && {
      security: PHONE_LIKE,
      bonds: BondStore.inMemory('the benchmark keeps none'),
    }),
  });
  const { store, busy, idle } = watchStore(auditStore);
  // On the model's clock time moves only here, while the tool waits on the bench alone.
  const drive = async <T>(promise: Promise<T>): Promise<T> => {
    if (!manual) return promise;
    let done = false;
    const tracked = promise.finally(() => (done = true));
    tracked.catch(() => undefined);
    while (!done) {
      if (busy()) await idle();
      else await manual.advance(STEP_MS);
    }
    return tracked;
  };
  return {
    boards,
    central,
    counts,
    security,
    drive,
    manual,
    provision: (board: Advertisement, psdi: PsdiAllocator, flash: ImageFlash | undefined) =>
      provisionBoard({
        central,
        store,
        profile: run.profile,
        product: PRODUCT,
        board,
        psdi,
        flash,
      }),
    close: async () => {
      await drive(central.close());
      bench.close();
    },
  };
}

/** Provisions `count` boards one after another on a fresh bench, each timed on `clock`. */
export async function provisionEach(
  auditStore: AuditStore,
  clock: Clock,
  count: number,
  run: ModelRun = { board: spec, profile: benchProfile() },
): Promise<BoardTime[]> {
  const bench = modelBench(auditStore, clock, count, run);
  const { central, counts, security, drive, manual } = bench;
  const psdi = createPsdiAllocator({ kind: 'sequence', prefix: 'OVH-', width: 4 }, 20);
  const flash = run.flash?.(central);
  const results: BoardTime[] = [];
  try {
    for (const board of bench.boards) {
      const ad = await drive(advertisement(central, board.address, clock, run.profile.service));
      const start = clock.now();
      const before = counts.events;
      const securedBefore = security.ms();
      const { durationMs } = await drive(bench.provision(ad, psdi, flash));
      results.push({
        ms: manual ? clock.now() - start : durationMs,
        events: counts.events - before,
        securityMs: security.ms() - securedBefore,
      });
    }
    return results;
  } finally {
    await bench.close();
  }
}

/**
 * The model's time for `count` boards provisioned `links` at a time on one controller, as a
 * batch runs them (src/core/provisioning/batch.ts: one scan open throughout, the next board
 * started as one ends), from the first board's start to the last one's end. The links share
 * what the controller has once: its ACL buffers, its radio (connection events take turns:
 * src/core/ble/sim/connection-schedule.ts) and its one LE Create Connection at a time — what
 * `links` × one board's time leaves out.
 */
export async function provisionAtOnce(
  auditStore: AuditStore,
  clock: ManualSimClock,
  count: number,
  links: number,
  run: ModelRun,
): Promise<number> {
  const bench = modelBench(auditStore, clock, count, run);
  const { central, drive } = bench;
  const psdi = createPsdiAllocator({ kind: 'sequence', prefix: 'AT1-', width: 4 }, 20);
  const flash = run.flash?.(central);
  const seen = new Map<string, Advertisement>();
  let allSeen = () => undefined as void;
  const found = new Promise<void>((resolve) => (allSeen = resolve));
  try {
    const scan = await drive(
      central.startScan({ serviceUuids: [run.profile.service] }, (ad) => {
        seen.set(ad.address, ad);
        if (seen.size === count) allSeen();
      }),
    );
    await drive(withinSeconds(found, clock, 5, 'the boards did not all advertise'));
    const queue = bench.boards.map((b) => seen.get(b.address)!);
    const start = clock.now();
    await drive(
      Promise.all(
        Array.from({ length: links }, async () => {
          for (let ad = queue.shift(); ad; ad = queue.shift())
            await bench.provision(ad, psdi, flash);
        }),
      ),
    );
    const ms = clock.now() - start;
    await drive(scan.stop());
    return ms;
  } finally {
    await bench.close();
  }
}

function withinSeconds(promise: Promise<void>, clock: Clock, seconds: number, what: string) {
  return new Promise<void>((resolve, reject) => {
    const timer = clock.setTimeout(
      () => reject(new Error(`${what} within ${seconds} s`)),
      seconds * 1000,
    );
    void promise.then(() => {
      clock.clearTimeout(timer);
      resolve();
    });
  });
}

function advertisement(
  central: BleCentral,
  address: string,
  clock: Clock,
  service: string,
): Promise<Advertisement> {
  return new Promise((resolve, reject) => {
    let timer: Timer | undefined;
    const scan = central.startScan({ serviceUuids: [service] }, (ad) => {
      if (ad.address !== address || !timer) return;
      clock.clearTimeout(timer);
      timer = undefined;
      void scan.then((s) => s.stop()).then(() => resolve(ad), reject);
    });
    timer = clock.setTimeout(() => reject(new Error(`${address} did not advertise`)), 5_000);
  });
}
