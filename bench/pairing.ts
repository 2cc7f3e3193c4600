// A reconnection with a stored bond against a fresh pairing, counted in connection events on the
// simulated bench's link model (never wall time): a board built for phones (LE Secure
// Connections, a fixed passkey on its display, bonds kept, a Security Request on connect) and a
// station that pairs as a phone does. The first link pairs (Passkey Entry, twenty rounds) and
// bonds; the second encrypts with the bond: the link layer's encryption procedure alone, two
// connection events (LL_ENC_REQ/RSP, LL_START_ENC_REQ/RSP) and no pairing PDU.
import type { Benchmark } from './benchmark';
import { InvalidRunError } from './benchmark';
import { PHONE_LIKE, spec } from './provisioning-model';
import { securityWindows } from './security-windows';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import type { Advertisement, BleConnection } from '../src/core/ble/port';
import { DEFAULT_ADAPTER_PROFILE } from '../src/core/ble/sim/adapter-profile';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import { BondStore } from '../src/core/ble/security-manager/bond-store';

const STEP_MS = 0.1;
/** Bench time a step may take before the run is called invalid. */
const LIMIT_MS = 30_000;
/** The link layer's encryption procedure: the floor of a reconnection with a bond. */
const ENCRYPTION_PROCEDURE_EVENTS = 2;

export const pairing: Benchmark = {
  name: 'pairing',
  summary: `a reconnection with a stored bond against a fresh SC pairing, in connection events (target: no pairing PDU, <= ${ENCRYPTION_PROCEDURE_EVENTS} events)`,
  async run(print) {
    const clock = new ManualSimClock(Date.now());
    const bench = new SimulatedBench({ seed: 1, clock });
    const board = spec('c6:00:00:00:00:01', 1, true);
    bench.addBoard({
      ...board,
      name: 'Bench Pair',
      security: { ...board.security, securityRequest: true },
    });
    const windows = securityWindows(() => clock.now());
    const bonds = BondStore.inMemory('the benchmark keeps none');
    const central = createSimulatedCentral(bench, {
      trace: (direction, packet) => windows.record(direction, packet),
      security: PHONE_LIKE,
      bonds,
    });
    const until = async (done: () => boolean, what: string) => {
      for (let t = 0; !done(); t += STEP_MS) {
        if (t > LIMIT_MS) throw new InvalidRunError(`${what}: not in ${LIMIT_MS} ms of bench time`);
        await clock.advance(STEP_MS);
      }
    };
    const drive = async <T>(promise: Promise<T>, what: string): Promise<T> => {
      let settled = false;
      const tracked = promise.finally(() => (settled = true));
      tracked.catch(() => undefined);
      await until(() => settled, what);
      return tracked;
    };
    const secured = async (what: string, kept: () => boolean) => {
      const before = { ms: windows.ms(), pdus: windows.pairingPdus() };
      let found: (ad: Advertisement) => void = () => undefined;
      const seen = new Promise<Advertisement>((resolve) => (found = resolve));
      const scan = await drive(
        central.startScan({ name: 'Bench Pair' }, (ad) => found(ad)),
        what,
      );
      const ad = await drive(seen, `${what}: the board's advertisement`);
      await drive(scan.stop(), what);
      const link: BleConnection = await drive(central.connect(ad.id), `${what}: connect`);
      // The board asks for security on connect; the link is done once encrypted and, on a
      // pairing, once the board's keys are kept.
      await until(() => link.linkInfo?.()?.security?.encrypted === true && kept(), what);
      const security = link.linkInfo?.()?.security;
      await drive(link.disconnect(), `${what}: disconnect`);
      return {
        events: Math.ceil(
          (windows.ms() - before.ms) / DEFAULT_ADAPTER_PROFILE.connectionIntervalMs,
        ),
        pdus: windows.pairingPdus() - before.pdus,
        method: security?.method ?? 'none',
      };
    };
    try {
      const fresh = await secured('a fresh pairing', () => bonds.list().length === 1);
      const bonded = await secured('a reconnection with the bond', () => true);
      const interval = DEFAULT_ADAPTER_PROFILE.connectionIntervalMs;
      print(
        `pairing: a board with LE Secure Connections, a fixed passkey on its display and bonds; ` +
          `the station types the passkey; ${interval} ms connection interval, board answers in 8 ms`,
      );
      print(
        `  fresh pairing (${fresh.method}): ${fresh.events} connection events, ${fresh.pdus} pairing PDUs`,
      );
      print(
        `  reconnection with the bond: ${bonded.events} connection events, ${bonded.pdus} pairing PDUs`,
      );
      const pass = bonded.pdus === 0 && bonded.events <= ENCRYPTION_PROCEDURE_EVENTS;
      print(
        `pairing: fresh pairing / reconnection with the bond = ${(fresh.events / bonded.events).toFixed(1)}× ` +
          `in connection events (target: the reconnection sends no pairing PDU and takes <= ` +
          `${ENCRYPTION_PROCEDURE_EVENTS} events) ${pass ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      await drive(central.close(), 'closing').catch(() => undefined);
      bench.close();
    }
  },
};
