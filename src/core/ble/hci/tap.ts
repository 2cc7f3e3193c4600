// The HCI tap: sits between noble's hci-socket host stack and the socket below it (the native
// HCI socket on hardware, the virtual controller in the simulated bench). It forwards every
// call and packet, records each packet to a sink (the btsnoop trace), and reads the traffic
// (traffic-reader.ts) to tell the adapter what noble does not: which ATT request the board
// refused and with which code, and when pairing or encryption failed. Reports are emitted
// before the packet reaches noble, so the adapter knows first. Two things it changes in noble's
// traffic: the station's identity (identity-gate.ts): for a controller with no public address,
// a static random address noble scans and connects with; and when noble's ACL packets go to the
// controller (acl-scheduler.ts): the controller's buffers shared among links in the order of
// their connection events, not in noble's one queue.
import { EventEmitter } from 'node:events';
import type { AdapterIdentity } from '../adapter-identity';
import type { Direction } from './btsnoop';
import { HCI_CMD, HCI_ERROR, HCI_EVENT, HCI_PACKET, commandPacket } from './codes';
import { IdentityGate } from './identity-gate';
import { AclScheduler } from './acl-scheduler';
import type { IdentityKeeping } from './identity-probe';
import type { HciDevice, HciSocket } from './socket';
import { errorMessage } from '../../errors/message';
import { PHY_CODE, type LinkRequest, type Phy } from '../link-parameters';
import type {
  AdvertisingReport,
  AttErrorReport,
  LinkReport,
  LinkState,
  SecurityFailure,
  TapCounts,
} from './tap-reports';
import { TrafficReader } from './traffic-reader';

export interface TapEvents {
  data: [packet: Buffer];
  error: [err: Error];
  attError: [report: AttErrorReport];
  securityFailed: [failure: SecurityFailure];
  advertisingReport: [report: AdvertisingReport];
  linkChanged: [report: LinkReport];
  /** The adapter's identity is settled (at start and after each controller reset). */
  identity: [identity: AdapterIdentity];
  /** The controller completed ACL packets, or a link's went with it (`aclPending` changed). */
  aclSent: [];
}

export type TraceSink = (direction: Direction, packet: Uint8Array) => void;

/** The TX_PHYS/RX_PHYS bit of a PHY (7.8.49): bit 0 1M, bit 1 2M, bit 2 Coded. */
const phyBit = (phy: Phy): number => 1 << (PHY_CODE[phy] - 1);

/** A Disconnection Complete (hardware failure) for `handle`: a link ended on this side. */
export function lostLinkEvent(handle: number): Buffer {
  return Buffer.from([
    HCI_PACKET.event,
    HCI_EVENT.disconnectionComplete,
    4,
    HCI_ERROR.success,
    handle & 0xff,
    handle >> 8,
    HCI_ERROR.hardwareFailure,
  ]);
}

/** Where a generated identity is kept, given the controller's manufacturer; none: not kept. */
export type IdentityKeepingFor = (manufacturer: number | undefined) => IdentityKeeping;

export class HciTap extends EventEmitter<TapEvents> implements HciSocket {
  private readonly reader = new TrafficReader();
  private readonly gate: IdentityGate;
  private readonly acl: AclScheduler;

  constructor(
    private readonly inner: HciSocket,
    private readonly sink?: TraceSink,
    keeping: IdentityKeepingFor = () => ({ key: 'unkept' }),
  ) {
    super();
    this.acl = new AclScheduler({
      toController: (packet) => {
        this.observe('sent', packet);
        this.inner.write(packet);
      },
      toHost: (packet) => this.deliver(packet),
      sent: () => this.emit('aclSent'),
    });
    this.gate = new IdentityGate(
      {
        toController: (packet) => this.acl.fromHost(packet),
        toHost: (packet) => this.deliver(packet),
        settled: (identity) => this.emit('identity', identity),
      },
      keeping,
    );
    inner.on('data', (packet) => {
      this.observe('received', packet);
      if (!this.gate.fromController(packet) && this.acl.fromController(packet))
        this.deliver(packet);
    });
    inner.on('error', (err) => this.emit('error', err));
  }

  /** A link's ACL packets not yet over the air (acl-scheduler.ts `pending`). */
  aclPending(handle: number): number {
    return this.acl.pending(handle);
  }

  get counts(): TapCounts {
    return this.reader.counts;
  }

  /** The address the adapter uses on the air and where it came from, once settled. */
  get identity(): AdapterIdentity | undefined {
    return this.gate.identity;
  }

  bindRaw(deviceId?: number): number {
    return this.inner.bindRaw(deviceId);
  }

  bindUser(deviceId?: number): number {
    return this.inner.bindUser(deviceId);
  }

  bindControl(): void {
    this.inner.bindControl();
  }

  isDevUp(): boolean {
    return this.inner.isDevUp();
  }

  setFilter(filter: Buffer): void {
    this.inner.setFilter(filter);
  }

  start(): void {
    this.inner.start();
  }

  stop(): void {
    this.inner.stop();
  }

  getDeviceList(): HciDevice[] {
    return this.inner.getDeviceList();
  }

  /** A packet from noble, under the identity's rule (held while the identity settles). */
  write(packet: Buffer): void {
    this.gate.fromHost(packet);
  }

  /** The link to a board as the controller last described it, while it is up. */
  linkState(peripheralId: string): LinkState | undefined {
    return this.reader.linkState(peripheralId);
  }

  /**
   * Sends the HCI command for a link request (all but pairing, the Security Manager's): LE
   * Connection Update, LE Set PHY, LE Set Data Length, Read RSSI. It goes out as noble's commands do, so it is in
   * the trace; noble ignores the answers to commands it did not send (only its own Read RSSI
   * result updates its peripheral's rssi). The outcome comes as `linkChanged`. False when the
   * board has no link.
   */
  sendLinkRequest(peripheralId: string, request: Exclude<LinkRequest, { kind: 'pair' }>): boolean {
    const handle = this.reader.handleOf(peripheralId);
    if (handle === undefined) return false;
    let packet: Buffer;
    if (request.kind === 'connectionParameters') {
      const p = request.parameters;
      const params = Buffer.alloc(14);
      params.writeUInt16LE(handle, 0);
      params.writeUInt16LE(Math.round(p.minIntervalMs / 1.25), 2);
      params.writeUInt16LE(Math.round(p.maxIntervalMs / 1.25), 4);
      params.writeUInt16LE(p.latency, 6);
      params.writeUInt16LE(Math.round(p.supervisionTimeoutMs / 10), 8);
      packet = commandPacket(HCI_CMD.leConnectionUpdate, params);
    } else if (request.kind === 'phy') {
      const params = Buffer.alloc(7);
      params.writeUInt16LE(handle, 0);
      params.writeUInt8(0, 2); // ALL_PHYS: a preference both ways
      params.writeUInt8(phyBit(request.phy.tx), 3);
      params.writeUInt8(phyBit(request.phy.rx), 4);
      packet = commandPacket(HCI_CMD.leSetPhy, params);
    } else if (request.kind === 'dataLength') {
      // Connection_Handle, TX_Octets, TX_Time: the time such a PDU takes on LE 1M (7.8.33).
      const params = Buffer.alloc(6);
      params.writeUInt16LE(handle, 0);
      params.writeUInt16LE(request.octets, 2);
      params.writeUInt16LE((request.octets + 14) * 8, 4);
      packet = commandPacket(HCI_CMD.leSetDataLength, params);
    } else {
      const params = Buffer.alloc(2);
      params.writeUInt16LE(handle, 0);
      packet = commandPacket(HCI_CMD.readRssi, params);
    }
    this.write(packet);
    return true;
  }

  /**
   * The one place every socket's packets reach noble. An exception from noble's hci.js (or a
   * layer above it) leaves its state for that packet half-changed, so the socket starts over
   * where it can (`recover`) and otherwise every link ends as lost; the process never ends on
   * a packet (docs/decisions.md, "A noisy serial line").
   */
  private deliver(packet: Buffer): void {
    try {
      this.emit('data', packet);
    } catch (err) {
      const why = `the host stack could not read a packet (${errorMessage(err)})`;
      if (this.inner.recover) this.inner.recover(why);
      else
        for (const handle of this.reader.handles()) {
          // The controller ends the link too; its answer names a handle noble no longer has.
          const params = Buffer.of(handle & 0xff, handle >> 8, HCI_ERROR.remoteUserTerminated);
          this.write(commandPacket(HCI_CMD.disconnect, params));
          const event = lostLinkEvent(handle);
          this.observe('received', event);
          this.acl.fromController(event);
          try {
            this.emit('data', event);
          } catch {
            // The link is gone either way; noble's half-read state goes with it.
          }
        }
    }
  }

  /**
   * noble's hci.js drops every listener of its socket when the adapter comes back up; the
   * adapter's own listeners (attError, securityFailed) must outlive that.
   */
  override removeAllListeners(event?: keyof TapEvents): this {
    if (event !== undefined) return super.removeAllListeners(event);
    super.removeAllListeners('data');
    super.removeAllListeners('error');
    return this;
  }

  private observe(direction: Direction, packet: Buffer): void {
    this.sink?.(direction, packet);
    for (const report of this.reader.read(direction, packet)) {
      if (report.event === 'attError') this.emit('attError', report.payload);
      else if (report.event === 'advertisingReport') this.emit('advertisingReport', report.payload);
      else if (report.event === 'linkChanged') this.emit('linkChanged', report.payload);
      else this.emit('securityFailed', report.payload);
    }
  }
}
