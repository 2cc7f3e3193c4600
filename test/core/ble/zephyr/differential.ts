// The differential suite's two sides (docs/decisions/simulated-bench.md): the same exchanges go
// to a simulated board (its virtual controller, on the wall clock) and to a real Zephyr peer
// (btvirt), each through noble's HCI host and the core's MCUmgr client, and each answer is
// reduced to what must agree (codes, fields, shapes), never timing.
import { McumgrClient, McumgrError } from '../../../../src/core/ble/mcumgr/client';
import type { McumgrBody, McumgrVersion } from '../../../../src/core/ble/mcumgr/frame';
import { SimulatedBench } from '../../../../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../../../../src/core/ble/sim/board-schema';
import { createSimulatedCentral } from '../../../../src/core/ble/radio/sim-central';
import type { NobleCentral } from '../../../../src/core/ble/radio/noble-central';
import type { HciCentralOptions } from '../../../../src/core/ble/radio/hci-central';
import type { BleConnection } from '../../../../src/core/ble/port';
import { findAdvertisement, openZephyrCentral, poweredOn } from '../../../helpers/zephyr/central';
import type { ZephyrPeer } from '../../../helpers/zephyr/zephyr-peer';

/** One side of the comparison: a central, and the board it talks to. */
export interface Side {
  readonly name: 'sim' | 'zephyr';
  readonly central: NobleCentral;
  /** Connects to the board by its name (a fresh scan each time), from `central` or the side's. */
  connect(central?: NobleCentral): Promise<BleConnection>;
  /** Another central beside the board (its own controller and address), closed with the side. */
  another(options: HciCentralOptions): Promise<NobleCentral>;
  /** Waits for the board to come back after a reset (its link is down by then). */
  rebooted(): Promise<void>;
  close(): Promise<void>;
}

export function simSide(board: BoardSpecInput, central: HciCentralOptions = {}): Side {
  const bench = new SimulatedBench({ seed: 47 });
  bench.addBoard(board, 'differential');
  const opened = createSimulatedCentral(bench, central);
  const others: NobleCentral[] = [];
  return {
    name: 'sim',
    central: opened,
    connect: async (from = opened) => {
      const ad = await findAdvertisement(from, { name: board.name });
      return from.connect(ad.id);
    },
    another: async (options) => {
      const other = createSimulatedCentral(bench, options);
      others.push(other);
      await poweredOn(other);
      return other;
    },
    // The simulated board is on air again once its reset time has passed.
    rebooted: () =>
      new Promise((resolve) => setTimeout(resolve, (board.mcumgr?.resetMs ?? 300) + 100)),
    close: async () => {
      for (const central of [...others, opened]) await central.close();
      bench.close();
    },
  };
}

export async function zephyrSide(
  peer: ZephyrPeer,
  name: string,
  central: HciCentralOptions = {},
): Promise<Side> {
  const opened = await openZephyrCentral(peer, central);
  const others: NobleCentral[] = [];
  let boots = peer.boots();
  return {
    name: 'zephyr',
    central: opened,
    connect: async (from = opened) => {
      await onAirAgain(peer);
      const ad = await findAdvertisement(from, { name });
      return from.connect(ad.id);
    },
    another: async (options) => {
      const other = await openZephyrCentral(peer, options);
      others.push(other);
      return other;
    },
    rebooted: async () => {
      boots += 1;
      await peer.booted(boots);
    },
    close: async () => {
      for (const central of [...others, opened]) await central.close();
    },
  };
}

/**
 * smp_svr advertises again from a work item after a link drops, stopping and starting its
 * advertising: a central that connects in between gets a link Zephyr's host never takes up. So
 * the next connection waits for its "Advertising successfully started" after the last
 * "Connected" (the peers that print neither need no wait).
 */
async function onAirAgain(peer: ZephyrPeer): Promise<void> {
  const count = (pattern: RegExp) => peer.log().match(pattern)?.length ?? 0;
  const deadline = Date.now() + 5_000;
  const connected = count(/: Connected /g);
  while (connected > 0 && count(/Advertising successfully started/g) <= connected) {
    if (Date.now() > deadline)
      throw new Error(`the Zephyr peer did not advertise again:\n${peer.log()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What an answer comes to: its body's shape and values, or the board's error codes. */
export type Outcome =
  { ok: unknown } | { error: { group?: number; rc: number } } | { failed: string };

/** Byte strings become their length (hashes differ between the boards' own images). */
function shape(value: unknown): unknown {
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    );
  return value;
}

export async function outcome(answer: Promise<McumgrBody>): Promise<Outcome> {
  try {
    return { ok: shape(await answer) };
  } catch (error) {
    if (error instanceof McumgrError && error.failure === 'board' && error.result)
      return { error: error.result };
    return { failed: error instanceof McumgrError ? error.failure : String(error) };
  }
}

/** An MCUmgr session on one side: one client per header version, opened as asked. */
export class McumgrSession {
  private link: BleConnection | undefined;
  private client: { version: McumgrVersion; client: McumgrClient } | undefined;

  constructor(readonly side: Side) {}

  async open(version: McumgrVersion): Promise<McumgrClient> {
    if (this.client?.version === version) return this.client.client;
    await this.client?.client.close();
    this.link ??= await this.side.connect();
    const client = await McumgrClient.open(this.link, { version, timeoutMs: 3_000, retries: 0 });
    this.client = { version, client };
    return client;
  }

  /** The board reset itself: the link is gone; the next request connects again. */
  dropped(): void {
    this.client = undefined;
    this.link = undefined;
  }

  async close(): Promise<void> {
    await this.client?.client.close();
    await this.link?.disconnect().catch(() => undefined);
    this.dropped();
  }
}
