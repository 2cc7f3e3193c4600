// A noisy serial line in a test: a TCP relay between a host and an H4 controller (`sim serve`)
// that damages the controller's packets as a bad cable, a wrong baud rate or a resetting dongle
// would: random bytes inserted, packets truncated, duplicated, dropped or delayed, and on the
// way back the host's packets truncated. Seeded, so a failing seed replays.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { H4Framer } from '../../src/core/ble/hci/h4-framer';
import { HCI_PACKET } from '../../src/core/ble/hci/codes';

export interface LineFaults {
  /** Chance per controller packet of 1–8 random bytes before it. */
  insert?: number;
  /** Chance per controller packet of being cut short (at least its type byte stays). */
  truncate?: number;
  /** Chance per controller packet of being sent twice. */
  duplicate?: number;
  /** Chance per controller packet of being lost. */
  drop?: number;
  /** Each controller packet waits up to this long (in order). */
  delayMs?: number;
  /** Chance per host packet of being cut short. */
  hostTruncate?: number;
  /** Controller packets that pass untouched first (the answer to the Reset, noble's set-up). */
  after?: number;
}

export interface LineRelay {
  /** Where the host connects: `tcp:127.0.0.1:<port>`. */
  spec: string;
  /** What the relay did, one word per fault: what a failing seed shows. */
  done: string[];
  /** Ends every stream: the cable pulled. */
  cut(): void;
  close(): Promise<void>;
}

/** mulberry32: a small seeded generator, enough for choosing faults. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The line's damage to one controller packet, as the pieces that go on: none (dropped), noise
 * before it, a cut-short copy, the packet twice. `done` gets one word per fault.
 */
export function lineDamage(
  seed: number,
  faults: LineFaults,
  done: string[] = [],
): (packet: Buffer) => Buffer[] {
  const next = random(seed);
  let passed = 0;
  return (packet) => {
    passed += 1;
    if (passed <= (faults.after ?? 0)) return [packet];
    if (next() < (faults.drop ?? 0)) {
      done.push('drop');
      return [];
    }
    const out: Buffer[] = [];
    if (next() < (faults.insert ?? 0)) {
      done.push('insert');
      const length = 1 + Math.floor(next() * 8);
      out.push(Buffer.from(Array.from({ length }, () => Math.floor(next() * 256))));
    }
    if (next() < (faults.truncate ?? 0)) {
      done.push('truncate');
      out.push(packet.subarray(0, 1 + Math.floor(next() * (packet.length - 1))));
      return out;
    }
    out.push(packet);
    if (next() < (faults.duplicate ?? 0)) {
      done.push('duplicate');
      out.push(packet);
    }
    return out;
  };
}

export async function lineRelay(
  target: string,
  seed: number,
  faults: LineFaults,
): Promise<LineRelay> {
  const [, host, port] = target.split(':');
  const next = random(seed + 1);
  const done: string[] = [];
  const streams = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), host);
    streams.add(client).add(upstream);
    const damage = lineDamage(seed, faults, done);
    let last = Promise.resolve();
    const send = (bytes: Buffer) => {
      const wait = faults.delayMs ? next() * faults.delayMs : 0;
      last = last.then(
        () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              if (!client.destroyed) client.write(bytes);
              resolve();
            }, wait),
          ),
      );
    };
    const fromController = new H4Framer({
      accept: [HCI_PACKET.event, HCI_PACKET.acl],
      onPacket: (packet) => damage(packet).forEach(send),
    });
    const fromHost = new H4Framer({
      accept: [HCI_PACKET.command, HCI_PACKET.acl],
      onPacket: (packet) => {
        if (next() < (faults.hostTruncate ?? 0)) {
          done.push('host-truncate');
          upstream.write(packet.subarray(0, Math.min(2, packet.length)));
        } else upstream.write(packet);
      },
    });
    client.on('data', (chunk: Buffer) => fromHost.push(chunk));
    upstream.on('data', (chunk: Buffer) => fromController.push(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const cut = () => {
    for (const stream of streams) stream.destroy();
    streams.clear();
  };
  return {
    spec: `tcp:127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    done,
    cut,
    close: () => {
      cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
