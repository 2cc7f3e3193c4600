// What the simulated bench's controller (controller.ts) and a board's end of a link
// (board-peer.ts) know of each other: the board on the air, the central that connects, and the
// board's answer to encryption.

/** A board as the controller's radio sees it. */
export interface RadioBoard {
  readonly address: string;
  readonly addressType: 'public' | 'random';
  /** The address on the air now: a resolvable private one for a board with privacy. */
  readonly airAddress: string;
  readonly airAddressType: 'public' | 'random';
  readonly connectable: boolean;
  /** Advertising now (not while connected or rebooting). */
  readonly advertising: boolean;
  readonly intervalMs: number;
  rssi(): number;
  /** Milliseconds from the first connect request the board hears until the link is up. */
  latency(kind: 'connect'): number;
  refusesConnection(): boolean;
}

/**
 * Who is connecting, as the board's SMP needs it for its confirm values: the initiator address
 * the CONNECT_IND carried (the controller's public address or its random one, as the host's
 * LE Create Connection asked).
 */
export interface CentralIdentity {
  address: string;
  addressType: 'public' | 'random';
}

/** The board's answer to LE Start Encryption (LL_ENC_REQ with the host's key). */
export type EncryptionVerdict = 'encrypted' | 'keyMissing' | 'micFailure';

/** What LE Start Encryption names the key by: EDIV and Rand (zero for an STK or an SC key). */
export interface KeyIdentity {
  ediv: number;
  rand: Buffer;
}

export interface RadioPeer {
  encryptionRequested(key: Buffer, identity: KeyIdentity): EncryptionVerdict;
  /** The link is encrypted: the board may now distribute keys. */
  encrypted(): void;
}
