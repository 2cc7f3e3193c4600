// What a failed BLE operation means for provisioning: a refusal (trying again gets the same
// answer), a lost link (a new session may succeed), or anything else. The ATT code travels as
// data, also across the BLE process (its protocol carries it and the app rebuilds the AttError),
// so it is read from the error's causes, never from its text.
import { ATT_ERROR, describeAttError } from '../ble/att/codes';
import { attErrorOf, causeOf, NotAllowedError } from '../ble/port';
import { errorMessage } from '../errors/message';

/** ATT errors a board answers by rule, not by chance (Vol 3, Part F, 3.4.1.1). */
const REFUSALS: ReadonlySet<number> = new Set([
  ATT_ERROR.readNotPermitted,
  ATT_ERROR.writeNotPermitted,
  ATT_ERROR.insufficientAuthentication,
  ATT_ERROR.insufficientAuthorization,
  ATT_ERROR.insufficientEncryptionKeySize,
  ATT_ERROR.insufficientEncryption,
  // The same value is the same length the next time.
  ATT_ERROR.invalidAttributeValueLength,
]);

const SECURITY: ReadonlySet<number> = new Set([
  ATT_ERROR.insufficientAuthentication,
  ATT_ERROR.insufficientAuthorization,
  ATT_ERROR.insufficientEncryptionKeySize,
  ATT_ERROR.insufficientEncryption,
]);

export interface Refusal {
  /** The ATT code; undefined for pairing refused or an operation the properties do not allow. */
  code: number | undefined;
  /** The refusal in words, e.g. "ATT error 0x03 (write not permitted)". */
  what: string;
  /** The board wanted a secure link it did not get. */
  security: boolean;
}

/** The ATT code the board answered, when the error (or one of its causes) is one. */
function attCode(err: unknown): number | undefined {
  return attErrorOf(err)?.code;
}

/** The board's refusal this error carries, or undefined for any other failure. */
export function refusalOf(err: unknown): Refusal | undefined {
  const code = attCode(err);
  if (code !== undefined && REFUSALS.has(code))
    return { code, what: `ATT error ${describeAttError(code)}`, security: SECURITY.has(code) };
  const local = causeOf(err, NotAllowedError);
  if (local)
    return {
      code: undefined,
      what: `its properties: ${local.message}`,
      security: false,
    };
  // noble-connection.ts's words for a request that waited on a pairing or encryption that failed.
  const secured = /needs an encrypted link and (.*?)(?:; the link is closed|$)/.exec(
    errorMessage(err),
  );
  if (secured) return { code: undefined, what: secured[1]!, security: true };
  return undefined;
}

/** The link went down under the operation (noble's "link lost", or the board vanished). */
function isLinkLost(err: unknown): boolean {
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
