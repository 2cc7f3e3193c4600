// Bytes sealed at rest with AES-256-GCM: a random 12-byte nonce, the 16-byte tag, then the
// ciphertext; `context` (which entry of which file) is bound in as associated data, so a sealed
// entry copied under another name does not open. The bond store and the simulated boards' flash
// seal with it (docs/decisions/security-and-hardening.md, "Bonds kept without a keychain").
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The nonce and tag before the ciphertext. */
export const SEAL_OVERHEAD = 12 + 16;

export function seal(key: Uint8Array, plain: Uint8Array, context = ''): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The plain bytes, or undefined when `sealed` does not open with `key` (damaged, another key). */
export function unseal(key: Uint8Array, sealed: Uint8Array, context = ''): Buffer | undefined {
  if (sealed.length < SEAL_OVERHEAD) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(sealed.subarray(12, SEAL_OVERHEAD));
    return Buffer.concat([decipher.update(sealed.subarray(SEAL_OVERHEAD)), decipher.final()]);
  } catch {
    return undefined;
  }
}
