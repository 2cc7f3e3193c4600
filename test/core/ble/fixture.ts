// A simulated bench on a manual clock with a real noble over it, for the BLE tests.
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';
import { SimulatedBench, type SimulatedBenchOptions } from '../../../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import {
  createSimulatedCentral,
  type SimulatedCentralOptions,
} from '../../../src/core/ble/radio/sim-central';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import type { Advertisement, ScanFilter } from '../../../src/core/ble/port';

export const SENSOR_SERVICE = 'a3c80000-7f2e-4b61-9c0d-5e1f2a3b4c5d';
export const BUTTON = 'a3c80001-7f2e-4b61-9c0d-5e1f2a3b4c5d';
export const TEMPERATURE = 'a3c80002-7f2e-4b61-9c0d-5e1f2a3b4c5d';
export const LED = 'a3c80003-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** A small fast board; override what a test is about. */
export function board(overrides: Partial<BoardSpecInput> = {}): BoardSpecInput {
  return {
    name: 'Test Board',
    advertising: { intervalMs: 20, rssi: { mean: -50, noise: 0 } },
    latency: { connectMs: 20, perOperationMs: 5 },
    ...overrides,
  };
}

export function sensorBoard(overrides: Partial<BoardSpecInput> = {}): BoardSpecInput {
  return board({
    name: 'Test Sensor',
    address: 'd6:3a:41:00:99:01',
    mtu: 185,
    gatt: [
      {
        uuid: SENSOR_SERVICE,
        characteristics: [
          { uuid: BUTTON, properties: ['read', 'notify'], value: { hex: '00' }, maxLength: 1 },
          {
            uuid: TEMPERATURE,
            properties: ['read', 'notify'],
            value: { hex: 'fa08' },
            maxLength: 2,
          },
          {
            uuid: LED,
            properties: ['read', 'write', 'writeWithoutResponse'],
            value: { hex: '00' },
            maxLength: 1,
          },
        ],
      },
    ],
    notifications: {
      buttons: [{ characteristic: BUTTON, payload: { kind: 'counter' } }],
      periodic: [
        { characteristic: TEMPERATURE, intervalMs: 100, payload: { kind: 'fixed', hex: '0409' } },
      ],
    },
    ...overrides,
  });
}

export interface Rig {
  clock: ManualSimClock;
  bench: SimulatedBench;
  central: NobleCentral;
  /** Moves the clock until `promise` settles (at most `limitMs` of simulated time). */
  drive<T>(promise: Promise<T>, limitMs?: number): Promise<T>;
  /** Scans until the first advertisement matching `filter`. */
  find(filter: ScanFilter): Promise<Advertisement>;
  /** Everything `filter` delivers during `ms` of simulated time. */
  collect(filter: ScanFilter, ms: number): Promise<Advertisement[]>;
  close(): Promise<void>;
}

export function rig(
  boards: BoardSpecInput[],
  options: SimulatedBenchOptions = {},
  centralOptions: SimulatedCentralOptions = {},
): Rig {
  const clock = new ManualSimClock(1_700_000_000_000);
  const bench = new SimulatedBench({ clock, seed: 7, ...options });
  for (const b of boards) bench.addBoard(b, 'test');
  const central = createSimulatedCentral(bench, {
    connectTimeoutMs: 2_000,
    operationTimeoutMs: 2_000,
    ...centralOptions,
  });
  const drive = async <T>(promise: Promise<T>, limitMs = 60_000): Promise<T> => {
    let done = false;
    const tracked = promise.finally(() => (done = true));
    tracked.catch(() => undefined);
    for (let t = 0; !done && t < limitMs; t += 5) await clock.advance(5);
    return tracked;
  };
  const collect = async (filter: ScanFilter, ms: number) => {
    const seen: Advertisement[] = [];
    const scan = await drive(central.startScan(filter, (ad) => seen.push(ad)));
    await clock.advance(ms);
    await drive(scan.stop());
    return seen;
  };
  const find = async (filter: ScanFilter) => {
    let found: Advertisement | undefined;
    const scan = await drive(central.startScan(filter, (ad) => (found ??= ad)));
    for (let t = 0; !found && t < 10_000; t += 10) await clock.advance(10);
    await drive(scan.stop());
    if (!found) throw new Error(`no board matching ${JSON.stringify(filter)} advertised`);
    return found;
  };
  return {
    clock,
    bench,
    central,
    drive,
    find,
    collect,
    close: async () => {
      await drive(central.close());
      bench.close();
    },
  };
}

/** Records the SMP PDUs (L2CAP CID 6) a session's HCI traffic carries, as `direction:code`. */
export function smpRecorder(): {
  seen: string[];
  trace: (direction: 'sent' | 'received', packet: Uint8Array) => void;
} {
  const seen: string[] = [];
  return {
    seen,
    trace: (direction, p) => {
      if (p[0] === 0x02 && p.length > 9 && (p[7]! | (p[8]! << 8)) === 0x0006)
        seen.push(`${direction}:${p[9]}`);
    },
  };
}

/**
 * LE legacy Just Works as noble and a simulated board run it: Pairing Request and Response,
 * both Confirms and Randoms, then the board's Encryption Information and Central
 * Identification once the link is encrypted.
 */
export const JUST_WORKS_PAIRING = [
  'sent:1',
  'received:2',
  'sent:3',
  'received:3',
  'sent:4',
  'received:4',
  'received:6',
  'received:7',
];
