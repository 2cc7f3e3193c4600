// What a failed BLE operation means for provisioning: a refusal by the board (trying again
// gets the same answer), a lost link (a new session may succeed), or anything else. Errors
// cross the BLE process as text, so the ATT code is read from the cause when there is one and
// otherwise from the message, which names it as describeAttError spells it.
import { ATT_ERROR, describeAttError } from '../ble/att/codes';
import { errorMessage } from '../errors/message';

/** ATT errors a board answers by rule, not by chance (Vol 3, Part F, 3.4.1.1). */
const REFUSALS: ReadonlySet<number> = new Set([
  ATT_ERROR.readNotPermitted,
  ATT_ERROR.writeNotPermitted,
  ATT_ERROR.insufficientAuthentication,
  ATT_ERROR.insufficientAuthorization,
  ATT_ERROR.insufficientEncryptionKeySize,
  ATT_ERROR.insufficientEncryption,
]);

const SECURITY: ReadonlySet<number> = new Set([
  ATT_ERROR.insufficientAuthentication,
  ATT_ERROR.insufficientAuthorization,
  ATT_ERROR.insufficientEncryptionKeySize,
  ATT_ERROR.insufficientEncryption,
]);

export interface Refusal {
  /** The ATT code, or undefined when pairing or encryption was refused before any answer. */
  code: number | undefined;
  /** The refusal in words, e.g. "ATT error 0x03 (write not permitted)". */
  what: string;
  /** The board wanted a secure link it did not get. */
  security: boolean;
}

function attCode(err: unknown): number | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if ('code' in e && typeof e.code === 'number' && e.name === 'AttError') return e.code;
  const match = /ATT error 0x([0-9a-f]{2})/i.exec(errorMessage(err));
  return match ? parseInt(match[1] as string, 16) : undefined;
}

/** The board's refusal this error carries, or undefined for any other failure. */
export function refusalOf(err: unknown): Refusal | undefined {
  const code = attCode(err);
  if (code !== undefined && REFUSALS.has(code))
    return { code, what: `ATT error ${describeAttError(code)}`, security: SECURITY.has(code) };
  if (/needs an encrypted link and (pairing failed|encryption refused)/.test(errorMessage(err)))
    return { code: undefined, what: 'pairing or encryption was refused', security: true };
  return undefined;
}

/** The link went down under the operation (noble's "link lost", or the board vanished). */
export function isLinkLost(err: unknown): boolean {
  return /link lost|not connected|disconnected/i.test(errorMessage(err));
}

/** A short name for why a try failed, for "attempt 2 after …". */
export function failureKind(err: unknown): string {
  if (isLinkLost(err)) return 'link lost';
  const code = attCode(err);
  if (code !== undefined) return `ATT error ${describeAttError(code)}`;
  if (/no answer within/.test(errorMessage(err))) return 'no answer';
  return 'a failure';
}
