// The simulated board's ATT server (Bluetooth Core Specification v5.3, Vol 3, Part F, 3.4, and
// the GATT procedures of Part G, 4): one instance per link, fed the ATT PDUs the controller
// reassembles from L2CAP CID 4, answering byte for byte as a peripheral's stack would. The
// board behind it (`AttValues`) owns the values; this owns handles, permissions, MTU, the
// prepare queue, CCCDs and indications. Choices where the specification leaves room are in
// docs/decisions.md ("The board's ATT server").
import { ATT_ERROR, ATT_OP, GATT_TYPE } from '../att/codes';
import {
  AttFailure,
  checkRange,
  errorRsp,
  expectLength,
  hex,
  isCommand,
  le16,
  pdu,
  u16,
} from './att-pdu';
import { securityShortfall, type AttLink } from './att-permissions';
import {
  GattDatabase,
  sameType,
  uuidFromBytes,
  uuidToBytes,
  type Attribute,
  type AttPermission,
  type GattServiceSpec,
} from './gatt-database';

export type { AttPermission, GattServiceSpec };

export type AttOutcome =
  /** Send this PDU back. */
  | { kind: 'respond'; pdu: Uint8Array }
  /** A command or confirmation: nothing to send. */
  | { kind: 'none' }
  /** The board's fault: the link goes down now. */
  | { kind: 'drop' };

/** The board behind the server (SimBoard implements it). UUIDs are the board's own. */
/** A value, or the ATT error code the board answers with. */
export type AttResult = { ok: true; data: Uint8Array } | { ok: false; code: number };
/** A write's outcome; `drop` when the board ends the link instead of answering. */
export type WriteResult = AttResult | { ok: false; drop: true };

export interface AttValues {
  read(service: string, characteristic: string): AttResult;
  write(
    service: string,
    characteristic: string,
    data: Uint8Array,
    withoutResponse: boolean,
  ): WriteResult;
  setNotify(service: string, characteristic: string, on: boolean): AttResult;
}

export interface AttServerOptions {
  /** The server's Rx MTU, offered in the Exchange MTU Response (≥ 23). */
  serverMtu: number;
  /** Prepare Write Requests queued before Prepare Queue Full; default 64. */
  prepareQueueLimit?: number;
}

/** ATT_MTU before an exchange, the LE minimum (Vol 3, Part F, 3.2.8). */
const DEFAULT_ATT_MTU = 23;
const DEFAULT_PREPARE_QUEUE_LIMIT = 64;

const CCCD_NOTIFY = 0x0001;
const CCCD_INDICATE = 0x0002;
/** "Client Characteristic Configuration Descriptor Improperly Configured" (Core Spec Supplement, Part B, 1.2). */
const CCCD_IMPROPERLY_CONFIGURED = 0xfd;

export class AttServer {
  private readonly db: GattDatabase;
  private readonly values: AttValues;
  private readonly link: AttLink;
  private readonly serverMtu: number;
  private readonly prepareQueueLimit: number;
  private attMtu = DEFAULT_ATT_MTU;
  /** CCCD values by CCCD handle; absent is 0 (Vol 3, Part G, 3.3.3.3: per connection). */
  private readonly cccds = new Map<number, number>();
  private prepared: { handle: number; offset: number; data: Uint8Array }[] = [];
  private indicationOutstanding = false;
  private readonly waitingIndications: Uint8Array[] = [];

  constructor(
    services: GattServiceSpec[],
    values: AttValues,
    link: AttLink,
    options: AttServerOptions,
  ) {
    if (!Number.isInteger(options.serverMtu) || options.serverMtu < DEFAULT_ATT_MTU)
      throw new Error(`serverMtu: must be a whole number ≥ ${DEFAULT_ATT_MTU}`);
    this.db = new GattDatabase(services);
    this.values = values;
    this.link = link;
    this.serverMtu = options.serverMtu;
    this.prepareQueueLimit = options.prepareQueueLimit ?? DEFAULT_PREPARE_QUEUE_LIMIT;
  }

  /** The negotiated ATT_MTU (23 until exchanged). */
  get mtu(): number {
    return this.attMtu;
  }

  /** The attribute table, for logs and tests. */
  get attributes(): readonly Attribute[] {
    return this.db.attributes;
  }

  /** One PDU from the central. */
  handle(request: Uint8Array): AttOutcome {
    if (request.length === 0) return { kind: 'none' };
    const opcode = request[0]!;
    try {
      const answer = this.dispatch(opcode, request);
      if (answer === 'drop') return { kind: 'drop' };
      return answer ? { kind: 'respond', pdu: answer } : { kind: 'none' };
    } catch (err) {
      if (!(err instanceof AttFailure)) throw err;
      // Commands get no answer, not even an error (Vol 3, Part F, 3.3).
      if (isCommand(opcode)) return { kind: 'none' };
      return { kind: 'respond', pdu: errorRsp(opcode, err.handle, err.code) };
    }
  }

  /**
   * A value the board pushes: a notification or indication PDU if the CCCD enables it, else
   * null. At most one indication is outstanding; later ones wait and come out of
   * `handle(confirmation)`. Values longer than ATT_MTU − 3 are cut, as stacks do.
   */
  push(service: string, characteristic: string, data: Uint8Array): Uint8Array | null {
    const value = this.db.valueOf(service, characteristic);
    if (!value) return null;
    const cccd = this.db.at(value.handle + 1);
    const config = cccd?.kind === 'cccd' ? (this.cccds.get(cccd.handle) ?? 0) : 0;
    const payload = data.subarray(0, this.attMtu - 3);
    if (config & CCCD_NOTIFY) return pdu(ATT_OP.handleValueNtf, le16(value.handle), payload);
    if (!(config & CCCD_INDICATE)) return null;
    const indication = pdu(ATT_OP.handleValueInd, le16(value.handle), payload);
    if (this.indicationOutstanding) {
      this.waitingIndications.push(indication);
      return null;
    }
    this.indicationOutstanding = true;
    return indication;
  }

  private dispatch(opcode: number, req: Uint8Array): Uint8Array | 'drop' | null {
    switch (opcode) {
      case ATT_OP.mtuReq:
        return this.exchangeMtu(req);
      case ATT_OP.findInfoReq:
        return this.findInformation(req);
      case ATT_OP.findByTypeValueReq:
        return this.findByTypeValue(req);
      case ATT_OP.readByTypeReq:
        return this.readByType(req);
      case ATT_OP.readReq:
        return this.read(req);
      case ATT_OP.readBlobReq:
        return this.readBlob(req);
      case ATT_OP.readMultipleReq:
        return this.readMultiple(req);
      case ATT_OP.readByGroupTypeReq:
        return this.readByGroupType(req);
      case ATT_OP.writeReq:
        return this.writeRequest(req);
      case ATT_OP.writeCmd:
        return this.writeCommand(req);
      case ATT_OP.prepareWriteReq:
        return this.prepareWrite(req);
      case ATT_OP.executeWriteReq:
        return this.executeWrite(req);
      case ATT_OP.handleValueCfm:
        return this.confirmation(req);
      default:
        // An unknown command is ignored; an unknown request is refused (Vol 3, Part F, 3.4.1.1).
        if (isCommand(opcode)) return null;
        throw new AttFailure(ATT_ERROR.requestNotSupported, 0);
    }
  }

  private exchangeMtu(req: Uint8Array): Uint8Array {
    expectLength(req, 3);
    const clientMtu = u16(req, 1);
    this.attMtu = Math.max(DEFAULT_ATT_MTU, Math.min(clientMtu, this.serverMtu));
    return pdu(ATT_OP.mtuRsp, le16(this.serverMtu));
  }

  private findInformation(req: Uint8Array): Uint8Array {
    expectLength(req, 5);
    const found = this.inRange(u16(req, 1), u16(req, 3));
    const first = uuidToBytes(found[0]!.type);
    const format = first.length === 2 ? 0x01 : 0x02;
    const entries: Uint8Array[] = [];
    let size = 2;
    for (const a of found) {
      const type = uuidToBytes(a.type);
      if (type.length !== first.length || size + 2 + type.length > this.attMtu) break;
      entries.push(pdu(le16(a.handle), type));
      size += 2 + type.length;
    }
    return pdu(ATT_OP.findInfoRsp, format, ...entries);
  }

  private findByTypeValue(req: Uint8Array): Uint8Array {
    if (req.length < 7) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const start = u16(req, 1);
    const type = u16(req, 5).toString(16).padStart(4, '0');
    const wanted = req.subarray(7);
    const entries: Uint8Array[] = [];
    for (const a of this.inRange(start, u16(req, 3))) {
      if (!sameType(a.type, type) || !this.matches(a, wanted)) continue;
      if (1 + 4 * (entries.length + 1) > this.attMtu) break;
      entries.push(pdu(le16(a.handle), le16(a.kind === 'service' ? a.endHandle : a.handle)));
    }
    if (!entries.length) throw new AttFailure(ATT_ERROR.attributeNotFound, start);
    return pdu(ATT_OP.findByTypeValueRsp, ...entries);
  }

  private readByType(req: Uint8Array): Uint8Array {
    if (req.length !== 7 && req.length !== 21) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const start = u16(req, 1);
    const type = uuidFromBytes(req.subarray(5))!;
    const matching = this.inRange(start, u16(req, 3)).filter((a) => sameType(a.type, type));
    if (!matching.length) throw new AttFailure(ATT_ERROR.attributeNotFound, start);
    // Each value is cut to fit one entry in the PDU, at most 253 bytes (Vol 3, Part F, 3.4.4.2).
    const room = Math.min(this.attMtu - 4, 253);
    const entries: Uint8Array[] = [];
    let length = 0;
    for (const [i, a] of matching.entries()) {
      let value: Uint8Array;
      try {
        value = this.readValue(a).subarray(0, room);
      } catch (err) {
        // The first attribute's error is the answer; a later one ends the list before it.
        if (i === 0) throw err;
        break;
      }
      if (i === 0) length = value.length;
      else if (value.length !== length || 2 + (entries.length + 1) * (2 + length) > this.attMtu)
        break;
      entries.push(pdu(le16(a.handle), value));
    }
    return pdu(ATT_OP.readByTypeRsp, 2 + length, ...entries);
  }

  private readByGroupType(req: Uint8Array): Uint8Array {
    if (req.length !== 7 && req.length !== 21) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const start = u16(req, 1);
    const end = u16(req, 3);
    checkRange(start, end);
    const type = uuidFromBytes(req.subarray(5))!;
    // GATT's grouping types are the service declarations (Vol 3, Part G, 2.5.3).
    const secondary = sameType(type, hex(GATT_TYPE.secondaryService));
    if (!sameType(type, hex(GATT_TYPE.primaryService)) && !secondary)
      throw new AttFailure(ATT_ERROR.unsupportedGroupType, start);
    const services = secondary ? [] : this.db.range(start, end).filter((a) => a.kind === 'service');
    if (!services.length) throw new AttFailure(ATT_ERROR.attributeNotFound, start);
    const room = Math.min(this.attMtu - 6, 251);
    const entries: Uint8Array[] = [];
    let length = 0;
    for (const [i, a] of services.entries()) {
      if (a.kind !== 'service') continue;
      const value = a.value!.subarray(0, room);
      if (i === 0) length = value.length;
      else if (value.length !== length || 2 + (entries.length + 1) * (4 + length) > this.attMtu)
        break;
      entries.push(pdu(le16(a.handle), le16(a.endHandle), value));
    }
    return pdu(ATT_OP.readByGroupTypeRsp, 4 + length, ...entries);
  }

  private read(req: Uint8Array): Uint8Array {
    expectLength(req, 3);
    const a = this.attribute(u16(req, 1));
    return pdu(ATT_OP.readRsp, this.readValue(a).subarray(0, this.attMtu - 1));
  }

  private readBlob(req: Uint8Array): Uint8Array {
    expectLength(req, 5);
    const a = this.attribute(u16(req, 1));
    const offset = u16(req, 3);
    const value = this.readValue(a);
    if (offset > value.length) throw new AttFailure(ATT_ERROR.invalidOffset, a.handle);
    return pdu(ATT_OP.readBlobRsp, value.subarray(offset, offset + this.attMtu - 1));
  }

  private readMultiple(req: Uint8Array): Uint8Array {
    // At least two handles (Vol 3, Part F, 3.4.4.7).
    if (req.length < 5 || req.length % 2 === 0) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const parts: Uint8Array[] = [];
    for (let at = 1; at < req.length; at += 2)
      parts.push(this.readValue(this.attribute(u16(req, at))));
    return pdu(ATT_OP.readMultipleRsp, pdu(...parts).subarray(0, this.attMtu - 1));
  }

  private writeRequest(req: Uint8Array): Uint8Array | 'drop' {
    if (req.length < 3) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const a = this.writable(u16(req, 1), false);
    if (this.writeValue(a, req.subarray(3), false) === 'drop') return 'drop';
    return pdu(ATT_OP.writeRsp);
  }

  private writeCommand(req: Uint8Array): 'drop' | null {
    if (req.length < 3) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const a = this.writable(u16(req, 1), true);
    return this.writeValue(a, req.subarray(3), true) === 'drop' ? 'drop' : null;
  }

  private prepareWrite(req: Uint8Array): Uint8Array {
    if (req.length < 5) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const a = this.writable(u16(req, 1), false);
    if (this.prepared.length >= this.prepareQueueLimit)
      throw new AttFailure(ATT_ERROR.prepareQueueFull, a.handle);
    const data = Uint8Array.from(req.subarray(5));
    this.prepared.push({ handle: a.handle, offset: u16(req, 3), data });
    // The response echoes the request's handle, offset and value (Vol 3, Part F, 3.4.6.2).
    return pdu(ATT_OP.prepareWriteRsp, req.subarray(1));
  }

  private executeWrite(req: Uint8Array): Uint8Array | 'drop' {
    expectLength(req, 2);
    const flags = req[1]!;
    if (flags > 0x01) throw new AttFailure(ATT_ERROR.invalidPdu, 0);
    const queue = this.prepared;
    this.prepared = [];
    if (flags === 0x00) return pdu(ATT_OP.executeWriteRsp);
    // Assemble every value and check them all before the first write: a reliable write is all
    // or nothing (Vol 3, Part G, 4.9.5).
    const assembled = new Map<number, Uint8Array>();
    for (const { handle, offset, data } of queue) {
      const before = assembled.get(handle) ?? new Uint8Array();
      if (offset > before.length) throw new AttFailure(ATT_ERROR.invalidOffset, handle);
      const next = new Uint8Array(Math.max(before.length, offset + data.length));
      next.set(before);
      next.set(data, offset);
      assembled.set(handle, next);
    }
    for (const [handle, value] of assembled) this.checkLength(this.attribute(handle), value);
    for (const [handle, value] of assembled)
      if (this.writeValue(this.attribute(handle), value, false) === 'drop') return 'drop';
    return pdu(ATT_OP.executeWriteRsp);
  }

  private confirmation(req: Uint8Array): Uint8Array | null {
    if (req.length !== 1 || !this.indicationOutstanding) return null;
    const next = this.waitingIndications.shift();
    this.indicationOutstanding = next !== undefined;
    return next ?? null;
  }

  /** Attributes in [start, end], Attribute Not Found when none (errors name `start`). */
  private inRange(start: number, end: number): Attribute[] {
    checkRange(start, end);
    const found = this.db.range(start, end);
    if (!found.length) throw new AttFailure(ATT_ERROR.attributeNotFound, start);
    return found;
  }

  private attribute(handle: number): Attribute {
    const a = handle === 0 ? undefined : this.db.at(handle);
    if (!a) throw new AttFailure(ATT_ERROR.invalidHandle, handle);
    return a;
  }

  private allowed(permission: AttPermission, handle: number, refused: number): void {
    if (permission === 'none') throw new AttFailure(refused, handle);
    const code = securityShortfall(permission, this.link);
    if (code !== undefined) throw new AttFailure(code, handle);
  }

  private readValue(a: Attribute): Uint8Array {
    this.allowed(a.read, a.handle, ATT_ERROR.readNotPermitted);
    if (a.kind === 'cccd') return le16(this.cccds.get(a.handle) ?? 0);
    if (a.kind !== 'value') return a.value!;
    const result = this.values.read(a.service, a.characteristic!);
    if (!result.ok) throw new AttFailure(result.code, a.handle);
    return result.data;
  }

  /** Whether `a`'s value equals `wanted` (UUIDs compared as UUIDs, Vol 3, Part F, 3.2.1). */
  private matches(a: Attribute, wanted: Uint8Array): boolean {
    let value: Uint8Array;
    try {
      value = this.readValue(a);
    } catch {
      return false;
    }
    if (a.kind === 'service') {
      const uuid = uuidFromBytes(wanted);
      return uuid !== undefined && sameType(uuidFromBytes(value)!, uuid);
    }
    return Buffer.from(value).equals(Buffer.from(wanted));
  }

  /** The attribute at `handle` if this write may go to it (Write Request or Command). */
  private writable(handle: number, command: boolean): Attribute {
    const a = this.attribute(handle);
    this.allowed(a.write, a.handle, ATT_ERROR.writeNotPermitted);
    if (
      a.kind === 'value' &&
      !a.spec.properties.includes(command ? 'writeWithoutResponse' : 'write')
    )
      throw new AttFailure(ATT_ERROR.writeNotPermitted, a.handle);
    return a;
  }

  private checkLength(a: Attribute, value: Uint8Array): void {
    const max = a.kind === 'cccd' ? 2 : a.kind === 'value' ? a.spec.maxLength : 0;
    if (a.kind === 'cccd' ? value.length !== 2 : value.length > max)
      throw new AttFailure(ATT_ERROR.invalidAttributeValueLength, a.handle);
  }

  private writeValue(a: Attribute, value: Uint8Array, command: boolean): 'drop' | void {
    this.checkLength(a, value);
    if (a.kind === 'cccd') return this.writeCccd(a, u16(value, 0));
    const result = this.values.write(a.service, a.characteristic!, value, command);
    if ('drop' in result) return 'drop';
    if (!result.ok) throw new AttFailure(result.code, a.handle);
  }

  private writeCccd(a: Attribute & { kind: 'cccd' }, config: number): void {
    const { properties } = a.spec;
    if (
      (config & CCCD_NOTIFY && !properties.includes('notify')) ||
      (config & CCCD_INDICATE && !properties.includes('indicate')) ||
      config & ~(CCCD_NOTIFY | CCCD_INDICATE)
    )
      throw new AttFailure(CCCD_IMPROPERLY_CONFIGURED, a.handle);
    const before = this.cccds.get(a.handle) ?? 0;
    if ((before !== 0) !== (config !== 0)) {
      const result = this.values.setNotify(a.service, a.characteristic!, config !== 0);
      if (!result.ok) throw new AttFailure(result.code, a.handle);
    }
    this.cccds.set(a.handle, config);
  }
}
