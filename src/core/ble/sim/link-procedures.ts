// The link procedures of the simulated controller (controller.ts) on links that are up: new
// connection parameters, a PHY change, a data length update, encryption with the host's key, and
// reading a link's PHY and RSSI — answered as the Core Specification v5.3, Vol 4, Part E, 7.8 says, at the link's
// connection events.
import { HCI_CMD, HCI_ERROR, HCI_EVENT, LE_SUBEVENT } from '../hci/codes';
import { PHY_CODE, type Phy } from '../link-parameters';
import type { AdapterProfile } from './adapter-profile';
import type { Link } from './link';
import type { EncryptionVerdict, RadioBoard, RadioPeer } from './radio';

/** One link and what the controller keeps about it beside the link model. */
export interface LinkEntry<B> {
  link: Link;
  board: B;
  peer?: RadioPeer;
  latency: number;
  txPhy: Phy;
  rxPhy: Phy;
}

/** A data PDU's payload octets before any Data Length Update (Vol 6, Part B, 4.5.10). */
export const MIN_DATA_LENGTH = 27;

/**
 * The longest data PDU payload a simulated board's link layer takes: Zephyr's
 * CONFIG_BT_CTLR_DATA_LENGTH_MAX=251, as smp_svr's overlay-bt.conf and DeviceBench's example
 * firmware (resources/firmware/devicebench-zephyr-mcumgr/prj.conf) set it.
 */
const BOARD_MAX_DATA_LENGTH = 251;

/** The PHYs this controller and every simulated board have (a common dongle's: 1M, 2M, Coded). */
const SUPPORTED_PHY_BITS = 0b111;

/** The PHY a preference bitmask settles on: the fastest offered, 1M when none (7.8.49). */
function chosenPhy(bits: number): Phy {
  if (bits & 0b010) return '2M';
  if (bits & 0b001 || bits === 0) return '1M';
  return 'coded';
}

/** How the procedures answer the host: the controller's events. */
interface ProcedureIo {
  complete(op: number, returnParams: Buffer): void;
  status(op: number, status: number): void;
  leMeta(subevent: number, params: Buffer): void;
  event(code: number, params: Buffer): void;
}

export class LinkProcedures<B extends RadioBoard> {
  constructor(
    private readonly links: ReadonlyMap<number, LinkEntry<B>>,
    private readonly profile: AdapterProfile,
    private readonly io: ProcedureIo,
  ) {}

  /** Runs command `op` when it is one of the link procedures; false when it is not. */
  run(op: number, params: Buffer): boolean {
    switch (op) {
      case HCI_CMD.leConnectionUpdate:
        this.connectionUpdate(op, params);
        return true;
      case HCI_CMD.leStartEncryption:
        this.startEncryption(op, params);
        return true;
      case HCI_CMD.leSetPhy:
        this.setPhy(op, params);
        return true;
      case HCI_CMD.leReadPhy:
        this.readPhy(op, params);
        return true;
      case HCI_CMD.readRssi:
        this.readRssi(op, params);
        return true;
      case HCI_CMD.leSetDataLength:
        this.setDataLength(op, params);
        return true;
      default:
        return false;
    }
  }

  private readPhy(op: number, params: Buffer): void {
    const handle = params.length >= 2 ? params.readUInt16LE(0) : -1;
    const entry = this.links.get(handle);
    const r = Buffer.alloc(5);
    r.writeUInt8(entry ? HCI_ERROR.success : HCI_ERROR.unknownConnectionId, 0);
    r.writeUInt16LE(Math.max(0, handle), 1);
    r.writeUInt8(PHY_CODE[entry?.txPhy ?? '1M'], 3);
    r.writeUInt8(PHY_CODE[entry?.rxPhy ?? '1M'], 4);
    this.io.complete(op, r);
  }

  private readRssi(op: number, params: Buffer): void {
    const handle = params.length >= 2 ? params.readUInt16LE(0) : -1;
    const entry = this.links.get(handle);
    const r = Buffer.alloc(4);
    r.writeUInt8(entry ? HCI_ERROR.success : HCI_ERROR.unknownConnectionId, 0);
    r.writeUInt16LE(Math.max(0, handle), 1);
    r.writeInt8(entry ? entry.board.rssi() : 0, 3);
    this.io.complete(op, r);
  }

  /**
   * LE Connection Update (7.8.18): parameters outside the spec's ranges, or a supervision timeout
   * not above (1 + latency) × maximum interval × 2, are refused with Command Status 0x12; the
   * new timing applies from the next connection event, reported by LE Connection Update Complete.
   */
  private connectionUpdate(op: number, p: Buffer): void {
    if (p.length < 14) return this.io.status(op, HCI_ERROR.invalidParameters);
    const handle = p.readUInt16LE(0);
    const entry = this.links.get(handle);
    if (!entry) return this.io.status(op, HCI_ERROR.unknownConnectionId);
    const [min, max, latency, timeout] = [2, 4, 6, 8].map((at) => p.readUInt16LE(at)) as [
      number,
      number,
      number,
      number,
    ];
    const valid =
      min >= 0x0006 &&
      max <= 0x0c80 &&
      min <= max &&
      latency <= 0x01f3 &&
      timeout >= 0x000a &&
      timeout <= 0x0c80 &&
      timeout * 10 > (1 + latency) * max * 1.25 * 2;
    if (!valid) return this.io.status(op, HCI_ERROR.invalidParameters);
    this.io.status(op, HCI_ERROR.success);
    const intervalMs = Math.min(
      Math.max(this.profile.connectionIntervalMs, min * 1.25),
      max * 1.25,
    );
    const supervisionTimeoutMs = timeout * 10;
    entry.link.nextEvent(() => {
      entry.link.retime({ intervalMs, supervisionTimeoutMs });
      entry.latency = latency;
      const e = Buffer.alloc(9);
      e.writeUInt8(HCI_ERROR.success, 0);
      e.writeUInt16LE(handle, 1);
      e.writeUInt16LE(Math.round(intervalMs / 1.25), 3);
      e.writeUInt16LE(latency, 5);
      e.writeUInt16LE(timeout, 7);
      this.io.leMeta(LE_SUBEVENT.connectionUpdateComplete, e);
    });
  }

  /**
   * LE Set PHY (7.8.49): Command Status, then LE PHY Update Complete once the LL_PHY_REQ/RSP and
   * LL_PHY_UPDATE_IND exchange is done (two connection events), even when nothing changed, as
   * for any procedure the host starts. A PHY bit this controller does not know: 0x11.
   */
  private setPhy(op: number, p: Buffer): void {
    if (p.length < 7) return this.io.status(op, HCI_ERROR.invalidParameters);
    const handle = p.readUInt16LE(0);
    const entry = this.links.get(handle);
    if (!entry) return this.io.status(op, HCI_ERROR.unknownConnectionId);
    const [allPhys, tx, rx] = [p[2]!, p[3]!, p[4]!];
    if ((tx | rx) & ~SUPPORTED_PHY_BITS) return this.io.status(op, HCI_ERROR.unsupportedFeature);
    if ((!(allPhys & 0b01) && tx === 0) || (!(allPhys & 0b10) && rx === 0))
      return this.io.status(op, HCI_ERROR.invalidParameters);
    this.io.status(op, HCI_ERROR.success);
    entry.link.nextEvent(() =>
      entry.link.nextEvent(() => {
        entry.txPhy = chosenPhy(allPhys & 0b01 ? SUPPORTED_PHY_BITS : tx);
        entry.rxPhy = chosenPhy(allPhys & 0b10 ? SUPPORTED_PHY_BITS : rx);
        entry.link.retime({ txPhy: entry.txPhy, rxPhy: entry.rxPhy });
        const e = Buffer.alloc(5);
        e.writeUInt8(HCI_ERROR.success, 0);
        e.writeUInt16LE(handle, 1);
        e.writeUInt8(PHY_CODE[entry.txPhy], 3);
        e.writeUInt8(PHY_CODE[entry.rxPhy], 4);
        this.io.leMeta(LE_SUBEVENT.phyUpdateComplete, e);
      }),
    );
  }

  /**
   * LE Set Data Length (7.8.33): Command Complete at once; a controller whose profile stops at 27
   * octets has no Data Length Extension and does not know the command (0x01), as a Bluetooth 4.0
   * or 4.1 dongle. Else LL_LENGTH_REQ/RSP at the next two events settle on the smaller of what
   * the host asks (capped at the controller's maximum) and the board's, reported by LE Data
   * Length Change only when it changed (7.7.65.7).
   */
  private setDataLength(op: number, p: Buffer): void {
    const handle = p.length >= 2 ? p.readUInt16LE(0) : -1;
    const answer = (status: number) => {
      const r = Buffer.alloc(3);
      r.writeUInt8(status, 0);
      r.writeUInt16LE(Math.max(0, handle), 1);
      this.io.complete(op, r);
    };
    if (this.profile.dataLength <= MIN_DATA_LENGTH)
      return this.io.complete(op, Buffer.of(HCI_ERROR.unknownCommand));
    if (p.length < 6) return answer(HCI_ERROR.invalidParameters);
    const entry = this.links.get(handle);
    if (!entry) return answer(HCI_ERROR.unknownConnectionId);
    const octets = p.readUInt16LE(2);
    if (octets < MIN_DATA_LENGTH || octets > BOARD_MAX_DATA_LENGTH)
      return answer(HCI_ERROR.invalidParameters);
    answer(HCI_ERROR.success);
    const length = Math.min(octets, this.profile.dataLength, BOARD_MAX_DATA_LENGTH);
    entry.link.nextEvent(() =>
      entry.link.nextEvent(() => {
        if (entry.link.dataLength === length) return;
        entry.link.retime({ dataLength: length });
        // Connection_Handle, Max_TX_Octets, Max_TX_Time, Max_RX_Octets, Max_RX_Time: the time a
        // PDU of that length takes on LE 1M, as a link that may fall back to it counts (4.5.10).
        const time = (length + 14) * 8;
        const e = Buffer.alloc(10);
        e.writeUInt16LE(handle, 0);
        e.writeUInt16LE(length, 2);
        e.writeUInt16LE(time, 4);
        e.writeUInt16LE(length, 6);
        e.writeUInt16LE(time, 8);
        this.io.leMeta(LE_SUBEVENT.dataLengthChange, e);
      }),
    );
  }

  private startEncryption(op: number, p: Buffer): void {
    if (p.length < 28) return this.io.status(op, HCI_ERROR.invalidParameters);
    const handle = p.readUInt16LE(0);
    const entry = this.links.get(handle);
    if (!entry) return this.io.status(op, HCI_ERROR.unknownConnectionId);
    this.io.status(op, HCI_ERROR.success);
    const key = Buffer.from(p.subarray(12, 28));
    // Connection_Handle, Random_Number (8), Encrypted_Diversifier (2), Long_Term_Key (16).
    const identity = { rand: Buffer.from(p.subarray(2, 10)), ediv: p.readUInt16LE(10) };
    // LL_ENC_REQ/RSP at the next event, LL_START_ENC_REQ/RSP at the one after.
    entry.link.nextEvent(() =>
      entry.link.nextEvent(() =>
        this.encryptionResult(
          handle,
          entry.peer?.encryptionRequested(key, identity) ?? 'keyMissing',
        ),
      ),
    );
  }

  private encryptionResult(handle: number, result: EncryptionVerdict): void {
    const entry = this.links.get(handle);
    if (!entry) return;
    if (result === 'micFailure') {
      entry.link.abort(HCI_ERROR.connectionTerminatedMicFailure);
      return;
    }
    const encrypted = result === 'encrypted';
    if (entry.link.encrypted) {
      // A new key on an encrypted link (a pairing at a higher level): the controller pauses
      // encryption and answers Encryption Key Refresh Complete (Vol 4, Part E, 7.8.24, 7.7.39).
      const refreshed = Buffer.alloc(3);
      refreshed.writeUInt8(encrypted ? HCI_ERROR.success : HCI_ERROR.pinOrKeyMissing, 0);
      refreshed.writeUInt16LE(handle, 1);
      this.io.event(HCI_EVENT.encryptionKeyRefreshComplete, refreshed);
      if (encrypted) entry.peer?.encrypted();
      else entry.link.abort(HCI_ERROR.pinOrKeyMissing);
      return;
    }
    entry.link.encrypted = encrypted;
    const e = Buffer.alloc(4);
    e.writeUInt8(encrypted ? HCI_ERROR.success : HCI_ERROR.pinOrKeyMissing, 0);
    e.writeUInt16LE(handle, 1);
    e.writeUInt8(encrypted ? 0x01 : 0x00, 3);
    this.io.event(HCI_EVENT.encryptionChange, e);
    if (encrypted) entry.peer?.encrypted();
  }
}
