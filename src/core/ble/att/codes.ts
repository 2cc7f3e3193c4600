// The ATT protocol's numbers, defined once for the board's GATT server (sim), the HCI tap that
// reads traffic on hardware and in the sim, and the adapter that turns errors into words
// (Bluetooth Core Specification v5.3, Vol 3, Part F, 3.4).

/** ATT PDU opcodes. */
export const ATT_OP = {
  errorRsp: 0x01,
  mtuReq: 0x02,
  mtuRsp: 0x03,
  findInfoReq: 0x04,
  findInfoRsp: 0x05,
  findByTypeValueReq: 0x06,
  findByTypeValueRsp: 0x07,
  readByTypeReq: 0x08,
  readByTypeRsp: 0x09,
  readReq: 0x0a,
  readRsp: 0x0b,
  readBlobReq: 0x0c,
  readBlobRsp: 0x0d,
  readMultipleReq: 0x0e,
  readMultipleRsp: 0x0f,
  readByGroupTypeReq: 0x10,
  readByGroupTypeRsp: 0x11,
  writeReq: 0x12,
  writeRsp: 0x13,
  prepareWriteReq: 0x16,
  prepareWriteRsp: 0x17,
  executeWriteReq: 0x18,
  executeWriteRsp: 0x19,
  handleValueNtf: 0x1b,
  handleValueInd: 0x1d,
  handleValueCfm: 0x1e,
  writeCmd: 0x52,
  signedWriteCmd: 0xd2,
} as const;

/** ATT error codes (Vol 3, Part F, 3.4.1.1). */
export const ATT_ERROR = {
  invalidHandle: 0x01,
  readNotPermitted: 0x02,
  writeNotPermitted: 0x03,
  invalidPdu: 0x04,
  insufficientAuthentication: 0x05,
  requestNotSupported: 0x06,
  invalidOffset: 0x07,
  insufficientAuthorization: 0x08,
  prepareQueueFull: 0x09,
  attributeNotFound: 0x0a,
  attributeNotLong: 0x0b,
  insufficientEncryptionKeySize: 0x0c,
  invalidAttributeValueLength: 0x0d,
  unlikelyError: 0x0e,
  insufficientEncryption: 0x0f,
  unsupportedGroupType: 0x10,
  insufficientResources: 0x11,
  /** The first application error: the board refused the value (e.g. a commit with a value missing). */
  application: 0x80,
} as const;

const ERROR_NAMES: Record<number, string> = {
  0x01: 'invalid handle',
  0x02: 'read not permitted',
  0x03: 'write not permitted',
  0x04: 'invalid PDU',
  0x05: 'insufficient authentication',
  0x06: 'request not supported',
  0x07: 'invalid offset',
  0x08: 'insufficient authorization',
  0x09: 'prepare queue full',
  0x0a: 'attribute not found',
  0x0b: 'attribute not long',
  0x0c: 'insufficient encryption key size',
  0x0d: 'invalid attribute value length',
  0x0e: 'unlikely error',
  0x0f: 'insufficient encryption',
  0x10: 'unsupported group type',
  0x11: 'insufficient resources',
  0xfc: 'write request rejected',
  0xfd: 'CCCD improperly configured',
  0xfe: 'procedure already in progress',
  0xff: 'out of range',
};

/** An ATT error code in words, e.g. "read not permitted". */
export function attErrorName(code: number): string {
  return (
    ERROR_NAMES[code] ??
    (code >= 0x80 && code <= 0x9f ? 'application error: the board refused the value' : 'error')
  );
}

/** "0x0d (invalid attribute value length)": how every message names an ATT code. */
export function describeAttError(code: number): string {
  return `0x${code.toString(16).padStart(2, '0')} (${attErrorName(code)})`;
}

const bytes = (n: number) => `${n} byte${n === 1 ? '' : 's'}`;

/**
 * What an Invalid Attribute Value Length (0x0d) answer to a write means, in numbers: the
 * characteristic's longest value when it is known (a board file says), else what was written.
 */
export function describeLengthRefusal(written: number, maxLength?: number): string {
  return maxLength === undefined
    ? `the board did not take ${bytes(written)}`
    : `it expects at most ${bytes(maxLength)}, got ${written}`;
}

const OPCODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ATT_OP).map(([name, op]) => [op, name]),
);

/** An ATT opcode's name from the table above, e.g. "readReq"; unknown ones in hex. */
export function attOpcodeName(opcode: number): string {
  return OPCODE_NAMES[opcode] ?? `0x${opcode.toString(16).padStart(2, '0')}`;
}

/** The L2CAP channels an LE link carries (Vol 3, Part A, 2.1). */
export const L2CAP_CID = {
  att: 0x0004,
  signaling: 0x0005,
  smp: 0x0006,
} as const;

/** L2CAP signaling: the Command Reject code and its reasons (Vol 3, Part A, 4.1). */
export const L2CAP_SIGNALING = {
  commandReject: 0x01,
  reasonCommandNotUnderstood: 0x0000,
} as const;

/** GATT attribute types (Bluetooth Assigned Numbers, 3.5 and 3.7). */
export const GATT_TYPE = {
  primaryService: 0x2800,
  secondaryService: 0x2801,
  include: 0x2802,
  characteristic: 0x2803,
  characteristicExtendedProperties: 0x2900,
  characteristicUserDescription: 0x2901,
  clientCharacteristicConfiguration: 0x2902,
  serverCharacteristicConfiguration: 0x2903,
} as const;

/** Characteristic property bits of a characteristic declaration (Vol 3, Part G, 3.3.1.1). */
export const CHARACTERISTIC_PROPERTY_BITS = {
  broadcast: 0x01,
  read: 0x02,
  writeWithoutResponse: 0x04,
  write: 0x08,
  notify: 0x10,
  indicate: 0x20,
  authenticatedSignedWrites: 0x40,
  extendedProperties: 0x80,
} as const;
