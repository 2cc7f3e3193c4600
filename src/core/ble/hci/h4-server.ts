// The simulated bench as a virtual dongle: a TCP or Unix listener where each accepted stream
// gets its own virtual controller on the one bench (so every host hears the same boards), H4
// framed both ways. `devicebench sim serve --h4` runs it; the transport tests and benchmark
// connect the app's own H4 path to it (docs/decisions.md, "H4 transports").
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { rm } from 'node:fs/promises';
import {
  AdapterSpecError,
  formatAdapterSpec,
  parseAdapterSpec,
  type AdapterSpec,
} from '../adapter-spec';
import type { SimulatedBench } from '../sim/bench';
import type { AdapterProfileInput } from '../sim/adapter-profile';
import { H4Framer } from './h4-framer';
import { HCI_PACKET } from './codes';
import { errorMessage } from '../../errors/message';

export type ServeSpec = Extract<AdapterSpec, { kind: 'tcp' | 'unix' }>;

export interface H4Server {
  /** Where hosts connect, with the real port: `tcp:127.0.0.1:40123`, `unix:/tmp/x.sock`. */
  spec: string;
  /** Streams connected now. */
  connections(): number;
  /** Stops listening and ends every stream (their controllers leave the bench). */
  close(): Promise<void>;
}

export class H4ServeError extends Error {
  override name = 'H4ServeError';
}

/**
 * Where to listen, in the adapter spec's text: `tcp:<host>:<port>` (port 0 picks a free one)
 * or `unix:<path>`. Throws AdapterSpecError in words for anything else.
 */
export function parseServeSpec(text: string): ServeSpec {
  // A host connects to a real port; only a listener may ask for "any" (0).
  const anyPort = /^tcp:.*:0$/.test(text.trim());
  const spec = parseAdapterSpec(anyPort ? `${text.trim().slice(0, -1)}1` : text);
  if (spec.kind === 'tcp') return anyPort ? { ...spec, port: 0 } : spec;
  if (spec.kind === 'unix') return spec;
  throw new AdapterSpecError(
    `${text}: serve over tcp:<host>:<port> (port 0 for any free one) or unix:<path>`,
  );
}

function attach(bench: SimulatedBench, stream: Socket, profile: AdapterProfileInput): void {
  stream.setNoDelay?.(true);
  const controller = bench.createController(profile);
  controller.start();
  const framer = new H4Framer({
    accept: [HCI_PACKET.command, HCI_PACKET.acl],
    onPacket: (packet) => controller.write(packet),
  });
  controller.on('data', (packet: Buffer) => {
    if (!stream.destroyed) stream.write(packet);
  });
  stream.on('data', (chunk: Buffer) => framer.push(chunk));
  stream.on('error', () => stream.destroy());
  stream.on('close', () => controller.dispose());
}

/**
 * Listens at `spec` (port 0: any free port) and serves `bench` to every host that connects, each
 * through a controller of `profile` (e.g. a Zephyr dongle without a public address).
 */
export async function serveH4(
  bench: SimulatedBench,
  spec: ServeSpec,
  profile: AdapterProfileInput = {},
): Promise<H4Server> {
  const streams = new Set<Socket>();
  const server: Server = createServer((stream) => {
    streams.add(stream);
    stream.on('close', () => streams.delete(stream));
    attach(bench, stream, profile);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new H4ServeError(`cannot listen at ${formatAdapterSpec(spec)}: ${errorMessage(err)}`)),
    );
    if (spec.kind === 'tcp') server.listen({ host: spec.host, port: spec.port }, resolve);
    else server.listen(spec.path, resolve);
  });
  const address = server.address() as AddressInfo | string;
  const actual: ServeSpec =
    typeof address === 'string' || spec.kind === 'unix'
      ? spec
      : { kind: 'tcp', host: spec.host, port: address.port };
  return {
    spec: formatAdapterSpec(actual),
    connections: () => streams.size,
    close: async () => {
      for (const stream of streams) stream.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (spec.kind === 'unix') await rm(spec.path, { force: true });
    },
  };
}
