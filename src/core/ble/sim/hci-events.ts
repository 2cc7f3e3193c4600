// The HCI event packets the simulated controller sends (Core Specification v5.3, Vol 4, Part E,
// 5.4.4 and 7.7), built from what they report.
import { HCI_EVENT, HCI_PACKET, LE_SUBEVENT } from '../hci/codes';
import { bytesOfAddress } from '../hci/own-address';
import { RSSI_NOT_AVAILABLE } from '../rssi';

export function eventPacket(code: number, params: Buffer): Buffer {
  return Buffer.concat([Buffer.of(HCI_PACKET.event, code, params.length), params]);
}

/** Command Complete (7.7.14): Num_HCI_Command_Packets 1, the opcode, its return parameters. */
export function commandComplete(op: number, returnParams: Buffer): Buffer {
  const e = Buffer.alloc(3 + returnParams.length);
  e.writeUInt8(1, 0);
  e.writeUInt16LE(op, 1);
  returnParams.copy(e, 3);
  return eventPacket(HCI_EVENT.commandComplete, e);
}

/** Command Status (7.7.15): Status, Num_HCI_Command_Packets 1, the opcode. */
export function commandStatus(op: number, status: number): Buffer {
  const e = Buffer.alloc(4);
  e.writeUInt8(status, 0);
  e.writeUInt8(1, 1);
  e.writeUInt16LE(op, 2);
  return eventPacket(HCI_EVENT.commandStatus, e);
}

export function leMeta(subevent: number, params: Buffer): Buffer {
  return eventPacket(HCI_EVENT.leMeta, Buffer.concat([Buffer.of(subevent), params]));
}

/** What an LE Connection Complete reports of the link (or of the attempt that failed). */
export interface ConnectionReport {
  status: number;
  handle: number;
  peerAddress: string;
  peerAddressType: 'public' | 'random';
  intervalMs: number;
  supervisionTimeoutMs: number;
}

/** LE Connection Complete (7.7.65.1), the controller as central. */
export function connectionComplete(r: ConnectionReport): Buffer {
  const e = Buffer.alloc(18);
  e.writeUInt8(r.status, 0);
  e.writeUInt16LE(r.handle, 1);
  e.writeUInt8(0x00, 3); // role: central
  e.writeUInt8(r.peerAddressType === 'random' ? 0x01 : 0x00, 4);
  bytesOfAddress(r.peerAddress).copy(e, 5);
  e.writeUInt16LE(Math.round(r.intervalMs / 1.25), 11);
  e.writeUInt16LE(0, 13);
  e.writeUInt16LE(Math.round(r.supervisionTimeoutMs / 10), 15);
  e.writeUInt8(0x00, 17);
  return leMeta(LE_SUBEVENT.connectionComplete, e);
}

/** LE Advertising Report (7.7.65.2) with one report. */
export function advertisingReport(
  address: string,
  addressType: 'public' | 'random',
  type: number,
  data: Buffer,
  rssi: number,
): Buffer {
  const r = Buffer.alloc(11 + data.length);
  r.writeUInt8(1, 0);
  r.writeUInt8(type, 1);
  r.writeUInt8(addressType === 'random' ? 0x01 : 0x00, 2);
  bytesOfAddress(address).copy(r, 3);
  r.writeUInt8(data.length, 9);
  data.copy(r, 10);
  const reported = rssi === RSSI_NOT_AVAILABLE ? rssi : Math.max(-127, Math.min(20, rssi));
  r.writeInt8(reported, 10 + data.length);
  return leMeta(LE_SUBEVENT.advertisingReport, r);
}
