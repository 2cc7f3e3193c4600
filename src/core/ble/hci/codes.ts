// The HCI numbers, defined once for the virtual controller, the HCI tap and the adapter's
// messages (Bluetooth Core Specification v5.3, Vol 4, Part E, 5.4 and 7; error codes Vol 1,
// Part F).

/** The H4 packet indicator, the first byte of every packet on the socket and in btsnoop. */
export const HCI_PACKET = {
  command: 0x01,
  acl: 0x02,
  sco: 0x03,
  event: 0x04,
  iso: 0x05,
} as const;

/** An HCI command packet: H4 type, opcode, parameter length, parameters (Vol 4, Part E, 5.4.1). */
export function commandPacket(op: number, params: Uint8Array = new Uint8Array(0)): Buffer {
  return Buffer.concat([Buffer.of(HCI_PACKET.command, op & 0xff, op >> 8, params.length), params]);
}

/**
 * A line of text as an HCI vendor event (0xff), `DeviceBench ` first: how the station writes a
 * note into its btsnoop trace, which has no comment record (a resync, a reset, a redacted key).
 * It never reaches noble.
 */
export function traceNote(text: string): Buffer {
  const bytes = Buffer.from(`DeviceBench ${text}`, 'latin1').subarray(0, 255);
  return Buffer.concat([
    Buffer.from([HCI_PACKET.event, HCI_EVENT.vendorSpecific, bytes.length]),
    bytes,
  ]);
}

/** An HCI command's opcode from its group (OGF) and command (OCF). */
const opcode = (ogf: number, ocf: number): number => (ogf << 10) | ocf;

export const HCI_CMD = {
  disconnect: opcode(0x01, 0x0006),
  setEventMask: opcode(0x03, 0x0001),
  reset: opcode(0x03, 0x0003),
  readLeHostSupported: opcode(0x03, 0x006c),
  writeLeHostSupported: opcode(0x03, 0x006d),
  readLocalVersion: opcode(0x04, 0x0001),
  readSupportedCommands: opcode(0x04, 0x0002),
  readBufferSize: opcode(0x04, 0x0005),
  readBdAddr: opcode(0x04, 0x0009),
  readRssi: opcode(0x05, 0x0005),
  leSetEventMask: opcode(0x08, 0x0001),
  leReadBufferSize: opcode(0x08, 0x0002),
  leReadBufferSizeV2: opcode(0x08, 0x0060),
  leSetRandomAddress: opcode(0x08, 0x0005),
  leSetAdvertisingParameters: opcode(0x08, 0x0006),
  leSetAdvertisingEnable: opcode(0x08, 0x000a),
  leSetScanParameters: opcode(0x08, 0x000b),
  leSetScanEnable: opcode(0x08, 0x000c),
  leCreateConnection: opcode(0x08, 0x000d),
  leCreateConnectionCancel: opcode(0x08, 0x000e),
  leConnectionUpdate: opcode(0x08, 0x0013),
  leEncrypt: opcode(0x08, 0x0017),
  leStartEncryption: opcode(0x08, 0x0019),
  leLongTermKeyRequestReply: opcode(0x08, 0x001a),
  leAddDeviceToResolvingList: opcode(0x08, 0x0027),
  leReadPhy: opcode(0x08, 0x0030),
  leSetPhy: opcode(0x08, 0x0032),
  leSetDataLength: opcode(0x08, 0x0022),
  leSetExtendedScanParameters: opcode(0x08, 0x0041),
  leSetExtendedScanEnable: opcode(0x08, 0x0042),
  leExtendedCreateConnection: opcode(0x08, 0x0043),
} as const;

/**
 * Zephyr's vendor commands (OGF 0x3F) as its `hci_uart`/`hci_usb` controllers answer them and its
 * own host asks: Read Version Information, Read Supported Commands (bit 8 of its 64-octet mask:
 * Read Static Addresses), Read Static Addresses (docs/decisions.md, "One identity per dongle").
 */
export const ZEPHYR_VS_CMD = {
  readVersionInfo: opcode(0x3f, 0x0001),
  readSupportedCommands: opcode(0x3f, 0x0002),
  readStaticAddresses: opcode(0x3f, 0x0009),
} as const;

/** The bit of Zephyr's vendor Supported Commands mask that says Read Static Addresses is there. */
export const ZEPHYR_VS_READ_STATIC_ADDRESSES_BIT = 8;

export const HCI_EVENT = {
  disconnectionComplete: 0x05,
  encryptionChange: 0x08,
  commandComplete: 0x0e,
  commandStatus: 0x0f,
  hardwareError: 0x10,
  numberOfCompletedPackets: 0x13,
  encryptionKeyRefreshComplete: 0x30,
  leMeta: 0x3e,
  vendorSpecific: 0xff,
} as const;

export const LE_SUBEVENT = {
  connectionComplete: 0x01,
  advertisingReport: 0x02,
  connectionUpdateComplete: 0x03,
  longTermKeyRequest: 0x05,
  dataLengthChange: 0x07,
  generateDhKeyComplete: 0x09,
  enhancedConnectionComplete: 0x0a,
  phyUpdateComplete: 0x0c,
} as const;

/** Advertising report event types (Vol 4, Part E, 7.7.65.2). */
export const ADV_REPORT_TYPE = {
  advInd: 0x00,
  advDirectInd: 0x01,
  advScanInd: 0x02,
  advNonconnInd: 0x03,
  scanRsp: 0x04,
} as const;

/** HCI error codes, also the reasons of Disconnection Complete (Vol 1, Part F, 1.3). */
export const HCI_ERROR = {
  success: 0x00,
  unknownCommand: 0x01,
  unknownConnectionId: 0x02,
  hardwareFailure: 0x03,
  authenticationFailure: 0x05,
  pinOrKeyMissing: 0x06,
  memoryCapacityExceeded: 0x07,
  connectionTimeout: 0x08,
  connectionLimitExceeded: 0x09,
  commandDisallowed: 0x0c,
  unsupportedFeature: 0x11,
  invalidParameters: 0x12,
  remoteUserTerminated: 0x13,
  remoteLowResources: 0x14,
  remotePowerOff: 0x15,
  localHostTerminated: 0x16,
  unsupportedRemoteFeature: 0x1a,
  lmpResponseTimeout: 0x22,
  unacceptableConnectionParameters: 0x3b,
  directedAdvertisingTimeout: 0x3c,
  connectionTerminatedMicFailure: 0x3d,
  connectionFailedToBeEstablished: 0x3e,
} as const;

const HCI_ERROR_NAMES: Record<number, string> = {
  0x01: 'unknown HCI command',
  0x02: 'unknown connection identifier',
  0x03: 'hardware failure',
  0x05: 'authentication failure',
  0x06: 'PIN or key missing',
  0x07: 'memory capacity exceeded',
  // The supervision timeout ran out: the link was lost. Messages that report a dropped link
  // already say "link lost", so the name does not.
  0x08: 'connection timeout',
  0x09: 'connection limit exceeded',
  0x0c: 'command disallowed',
  0x11: 'unsupported feature or parameter value',
  0x12: 'invalid HCI command parameters',
  0x13: 'the board ended the connection',
  0x14: 'the board ended the connection (low resources)',
  0x15: 'the board ended the connection (power off)',
  0x16: 'disconnected by this computer',
  0x1a: 'unsupported remote feature',
  0x22: 'LMP response timeout',
  0x3b: 'unacceptable connection parameters',
  0x3c: 'directed advertising timeout',
  0x3d: 'connection terminated due to MIC failure',
  0x3e: 'connection failed to be established',
};

/** An HCI error or disconnect reason in words. */
function hciErrorName(code: number): string {
  return HCI_ERROR_NAMES[code] ?? 'HCI error';
}

/** "connection timeout (0x08)": how every message names an HCI code. */
export function describeHciError(code: number): string {
  return `${hciErrorName(code)} (0x${code.toString(16).padStart(2, '0')})`;
}

/** HCI_Version as Read Local Version Information reports it (Assigned Numbers, 2.1). */
export const HCI_VERSION = {
  v5_0: 0x09,
  v5_3: 0x0c,
} as const;

/** SMP command codes (Vol 3, Part H, 3.3). */
export const SMP_CODE = {
  pairingRequest: 0x01,
  pairingResponse: 0x02,
  pairingConfirm: 0x03,
  pairingRandom: 0x04,
  pairingFailed: 0x05,
  encryptionInformation: 0x06,
  centralIdentification: 0x07,
  identityInformation: 0x08,
  identityAddressInformation: 0x09,
  signingInformation: 0x0a,
  securityRequest: 0x0b,
  pairingPublicKey: 0x0c,
  pairingDhKeyCheck: 0x0d,
  keypressNotification: 0x0e,
} as const;

/** SMP Pairing Failed reasons (Vol 3, Part H, 3.5.5). */
export const SMP_FAILURE = {
  passkeyEntryFailed: 0x01,
  oobNotAvailable: 0x02,
  authenticationRequirements: 0x03,
  confirmValueFailed: 0x04,
  pairingNotSupported: 0x05,
  encryptionKeySize: 0x06,
  commandNotSupported: 0x07,
  unspecifiedReason: 0x08,
  repeatedAttempts: 0x09,
  invalidParameters: 0x0a,
  dhKeyCheckFailed: 0x0b,
  numericComparisonFailed: 0x0c,
  keyRejected: 0x0f,
} as const;
