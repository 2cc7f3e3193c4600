// The link layer between a Zephyr peer and btvirt, in the test's own process (the same job as
// ../shared/zephyr-peer/lib/ll-relay.js, whose README says why it exists): Zephyr's
// native_posix userchan driver speaks H4 over TCP, and each TCP connection becomes a stream to a
// new btvirt LE controller. On the way to the peer, ACL data is cut to 27-byte fragments, as a
// link layer at the default data length delivers it (btvirt hands a central's larger fragments
// over whole); when the peer's process ends (an MCUmgr reset exits on native_posix), its links
// are disconnected on its controller first, as a real link drops (btvirt has no supervision
// timeout, so the central would otherwise wait on a dead link).
import { connect, createServer, type Server, type Socket } from 'node:net';
import { H4Framer } from '../../../src/core/ble/hci/h4-framer';
import {
  commandPacket,
  HCI_CMD,
  HCI_EVENT,
  HCI_PACKET,
  LE_SUBEVENT,
} from '../../../src/core/ble/hci/codes';

/** The LE default data length: the most a link layer delivers in one PDU. */
const LL_DEFAULT_FRAGMENT = 27;
/** How long the disconnects have to reach the central before the controller goes. */
const DISCONNECT_GRACE_MS = 300;
/** LE (Enhanced) Connection Complete: with status 0, a link is up on the peer's controller. */
const CONNECTED = new Set<number>([
  LE_SUBEVENT.connectionComplete,
  LE_SUBEVENT.enhancedConnectionComplete,
]);

export interface LinkLayerRelay {
  /** The loopback port the peer's `--bt-dev=127.0.0.1:<port>` connects to. */
  port: number;
  close(): Promise<void>;
}

/** One ACL packet cut into fragments of at most `max` bytes (continuation flag on the rest). */
function refragment(packet: Buffer, max: number): Buffer[] {
  if (packet[0] !== HCI_PACKET.acl) return [packet];
  const length = packet.readUInt16LE(3);
  if (length <= max) return [packet];
  const flags = packet.readUInt16LE(1);
  const handle = flags & 0x0fff;
  const start = (flags >> 12) & 0x3;
  const broadcast = (flags >> 14) & 0x3;
  const out: Buffer[] = [];
  for (let at = 0; at < length; at += max) {
    const n = Math.min(max, length - at);
    const fragment = Buffer.alloc(5 + n);
    fragment[0] = HCI_PACKET.acl;
    fragment.writeUInt16LE(handle | ((at === 0 ? start : 0x1) << 12) | (broadcast << 14), 1);
    fragment.writeUInt16LE(n, 3);
    packet.copy(fragment, 5, 5 + at, 5 + at + n);
    out.push(fragment);
  }
  return out;
}

/** Relays every TCP connection on a free loopback port to a new stream on `leSocket`. */
export async function startLinkLayerRelay(
  leSocket: string,
  max = LL_DEFAULT_FRAGMENT,
): Promise<LinkLayerRelay> {
  const streams = new Set<Socket>();
  const server: Server = createServer((peer) => {
    const controller = connect(leSocket);
    streams.add(peer).add(controller);
    /** Connection handles open on the peer's controller. */
    const live = new Set<number>();
    const fromController = new H4Framer({
      accept: [HCI_PACKET.event, HCI_PACKET.acl],
      onPacket: (packet) => {
        const event = packet[0] === HCI_PACKET.event ? packet[1] : undefined;
        if (event === HCI_EVENT.leMeta && packet[4] === 0 && CONNECTED.has(packet[3]!))
          live.add(packet.readUInt16LE(5) & 0x0fff);
        if (event === HCI_EVENT.disconnectionComplete && packet[3] === 0)
          live.delete(packet.readUInt16LE(4) & 0x0fff);
        if (!peer.destroyed) for (const fragment of refragment(packet, max)) peer.write(fragment);
      },
    });
    controller.on('data', (chunk: Buffer) => fromController.push(chunk));
    peer.on('data', (chunk: Buffer) => controller.write(chunk));
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      peer.destroy();
      streams.delete(peer);
      if (controller.destroyed || live.size === 0) {
        streams.delete(controller);
        return controller.destroy();
      }
      // HCI Disconnect, reason 0x13 (remote user terminated), for each live link.
      for (const handle of live)
        controller.write(
          commandPacket(HCI_CMD.disconnect, Uint8Array.of(handle & 0xff, handle >> 8, 0x13)),
        );
      setTimeout(() => {
        streams.delete(controller);
        controller.destroy();
      }, DISCONNECT_GRACE_MS);
    };
    for (const stream of [peer, controller]) stream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the relay has no TCP port');
  return {
    port: address.port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const stream of streams) stream.destroy();
      streams.clear();
      await closed;
    },
  };
}
