// Webhook signatures as the platform's messaging API makes them: HMAC-SHA256 of the raw
// request body with the channel secret, base64. The header name is not in the seeds; ours is
// documented in docs/decisions.md. The emulator signs with this, the app's receiver verifies.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-platform-signature';

export function signBody(body: string | Uint8Array, channelSecret: string): string {
  return createHmac('sha256', channelSecret).update(body).digest('base64');
}

/** True when `signature` is the body's signature under `channelSecret`; compares in constant time. */
export function verifySignature(
  body: string | Uint8Array,
  channelSecret: string,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(signBody(body, channelSecret), 'base64');
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
