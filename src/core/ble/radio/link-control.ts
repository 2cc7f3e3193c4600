// How a NobleConnection reaches the controller and the station's Security Manager under noble,
// and the bounds its operations share with NobleCentral: what each link request waits for, the
// stronger pairing a refusal on an encrypted link asks for, which ATT refusals are noble's to
// handle, and the timeout error.
import { ATT_ERROR, ATT_OP } from '../att/codes';
import { describeHciError } from '../hci/codes';
import { formatUuid, type BleStep, type LinkFailure } from '../port';
import type { LinkCause, LinkState } from '../hci/tap-reports';
import type { LinkRequest, LinkSecurity } from '../link-parameters';
import type { PairingContext } from '../security-manager/refusals';
import { withTimeout, type Schedule } from '../../async/timeout';

/** Requests that read or write a value: an error to one of these fails the operation. */
export const VALUE_REQUESTS: ReadonlySet<number> = new Set([
  ATT_OP.readReq,
  ATT_OP.readBlobReq,
  ATT_OP.readMultipleReq,
  ATT_OP.writeReq,
  ATT_OP.prepareWriteReq,
  ATT_OP.executeWriteReq,
]);

/**
 * The refusals noble's gatt.js answers: a read, with the bytes it had (none). A refused write, or
 * a subscribe's CCCD read or write, it leaves unanswered, so the operation acts on the refusal
 * itself (a subscribe's CCCD is found by Read By Type, which discovery also sends and ends with
 * Attribute Not Found by design: only its security refusals count).
 */
export const ANSWERED_REFUSALS: ReadonlySet<number> = new Set([ATT_OP.readReq, ATT_OP.readBlobReq]);

/** The errors on which noble's gatt.js pairs by itself before it retries the request. */
export const SECURITY_ERRORS: ReadonlySet<number> = new Set([
  ATT_ERROR.insufficientAuthentication,
  ATT_ERROR.insufficientAuthorization,
  ATT_ERROR.insufficientEncryption,
]);

/** noble's disconnect reason (an HCI code on Linux, absent elsewhere) in words. */
export function disconnectReason(reason: unknown): string {
  if (typeof reason === 'number') return describeHciError(reason);
  if (typeof reason === 'string' && reason) return reason;
  return 'disconnected';
}

export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/**
 * `withTimeout` with the error a BLE operation that took too long rejects with; `onTimeout` starts
 * ending the operation (cancels the connect, drops the link).
 */
export function withBleTimeout<T>(
  schedule: Schedule,
  promise: Promise<T>,
  ms: number,
  onTimeout?: () => void,
): Promise<T> {
  return withTimeout(
    promise,
    ms,
    () => {
      onTimeout?.();
      return new TimeoutError(`no answer within ${ms} ms`);
    },
    schedule,
  );
}

/** What a pairing at a higher level asks for. */
/** The station then needs MITM itself: the board said the characteristic needs more. */
export type StrongerPairing = { mitm: true; sc: true; requireMitm: true };

/**
 * The pairing an encrypted link's refusal asks for, once (docs/decisions.md, "Pairing as a
 * phone does"): Insufficient Authentication on a key that is not authenticated or not Secure
 * Connections, Insufficient Encryption Key Size on a key shorter than 16 octets. Anything else
 * a new pairing would not change.
 */
export function strongerPairing(
  code: number,
  security: LinkSecurity | undefined,
): StrongerPairing | undefined {
  if (!security?.encrypted) return undefined;
  const weak =
    code === ATT_ERROR.insufficientAuthentication
      ? !security.authenticated || security.key !== 'sc'
      : code === ATT_ERROR.insufficientEncryptionKeySize && (security.keySize ?? 16) < 16;
  return weak ? { mitm: true, sc: true, requireMitm: true } : undefined;
}

/**
 * The controller's side of the links, as the HCI tap under noble reads it (`hci/tap.ts`), and
 * the station's Security Manager under noble for pairing. Absent on noble's OS bindings, which show none of it.
 */
export interface LinkControl {
  linkState(peripheralId: string): LinkState | undefined;
  sendLinkRequest(peripheralId: string, request: Exclude<LinkRequest, { kind: 'pair' }>): boolean;
  /**
   * Starts pairing (the station's SMP under noble) on the board's link, with options over the
   * station's; false when there is no link.
   */
  pair(
    peripheralId: string,
    request?: Omit<Extract<LinkRequest, { kind: 'pair' }>, 'kind'>,
  ): boolean;
  /**
   * The key distribution under way on the board's link after its pairing encrypted it:
   * resolves once the keys were exchanged on both sides, rejects with the pairing's failure;
   * undefined when none is under way.
   */
  keyDistribution?(peripheralId: string): Promise<void> | undefined;
  /** How the link is secured, once pairing or a bond encrypted it. */
  linkSecurity?(peripheralId: string): LinkSecurity | undefined;
  /** What each side said in the last pairing on the board's link, for its failure's words. */
  pairingContext?(peripheralId: string): PairingContext | undefined;
  /** The MTU the next link to the board asks for; `undefined` is noble's own. */
  askMtu(peripheralId: string, mtu: number | undefined): void;
}

/** The event that ends each request. */
export const REQUEST_CAUSE: Record<LinkRequest['kind'], LinkCause> = {
  connectionParameters: 'connectionParameters',
  phy: 'phy',
  dataLength: 'dataLength',
  pair: 'encryption',
  rssi: 'rssi',
};

export const REQUEST_WORDS: Record<LinkRequest['kind'], string> = {
  connectionParameters: 'asking for new connection parameters',
  phy: 'asking for a PHY',
  dataLength: 'asking for a data length',
  pair: 'pairing',
  rssi: 'reading the RSSI',
};

/** "characteristic 2a19…" for an error message, or the text as given when it is no UUID. */
export function characteristicLabel(uuid: string): string {
  try {
    return `characteristic ${formatUuid(uuid)}`;
  } catch {
    return `characteristic "${uuid}"`;
  }
}

/** The one operation on a link that is waiting on the board. */
export interface InFlight {
  step: BleStep;
  /** `link`: the link ended it, not the board's answer. */
  fail(message: string, cause?: unknown, link?: LinkFailure): void;
  /** The board refused it for want of a stronger key: pair at the level needed, then retry. */
  needs?: StrongerPairing;
  /** The board refused it and noble will not answer (`ANSWERED_REFUSALS`): pair for `needs` now. */
  refused(): void;
  /** Bounds it anew by `ms` from now. */
  extend(ms: number): void;
}
