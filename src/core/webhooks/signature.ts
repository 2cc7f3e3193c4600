// Webhook signatures as the platform's messaging API makes them: HMAC-SHA256 of the raw request
// body with the channel secret, base64. The platform does not name the header; ours is in
// docs/decisions.md ("Webhooks (shared by every area that sends events)"). The emulator signs with
// this, the app's receiver verifies.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-platform-signature';

export function signBody(body: string | Uint8Array, channelSecret: string): string {
  return createHmac('sha256', channelSecret).update(body).digest('base64');
}

/**
 * True when `signature` is exactly the body's signature under `channelSecret`: canonical padded
 * standard base64 of the 32-byte HMAC and nothing else (no spaces, junk, missing padding or
 * URL-safe alphabet, which a lenient decoder would skip over). Compares in constant time.
 */
export function verifySignature(
  body: string | Uint8Array,
  channelSecret: string,
  signature: string | undefined,
): boolean {
  const given = decodeSignature(signature);
  if (!given) return false;
  const expected = createHmac('sha256', channelSecret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** 32 bytes (SHA-256) in padded base64 is 43 alphabet characters and one `=`. */
const SIGNATURE_FORM = /^[A-Za-z0-9+/]{43}=$/;

/** The HMAC bytes a header carries, or undefined when it is not in the one accepted form. */
function decodeSignature(signature: string | undefined): Buffer | undefined {
  if (!signature || !SIGNATURE_FORM.test(signature)) return undefined;
  const bytes = Buffer.from(signature, 'base64');
  // Non-zero bits under the padding decode to the same bytes: only the canonical form counts.
  return bytes.toString('base64') === signature ? bytes : undefined;
}
