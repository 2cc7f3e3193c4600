// Whether a link's security lets an access through, answered as a Zephyr GATT server answers
// (docs/decisions/simulated-bench.md, "Pairing on the simulated boards").
import { ATT_ERROR } from '../att/codes';
import type { AttPermission } from './gatt-database';

/** What the ATT server knows of its link's security. */
export interface AttLink {
  encrypted(): boolean;
  /** The key the link is encrypted with; absent, an encrypted link counts as Just Works legacy. */
  key?(): LinkKey | undefined;
  /** Whether the board holds a long-term key for this central (Zephyr's bt_conn_ltk_present). */
  bonded?(): boolean;
}

export interface LinkKey {
  authenticated: boolean;
  sc: boolean;
  keySize: number;
}

const FULL_KEY_SIZE = 16;

/**
 * The ATT error a Zephyr GATT server answers when the link is below what an access needs
 * (bt_gatt_check_perm; see "Pairing on the simulated boards"): an unencrypted
 * link is Insufficient Encryption when the board has a key for the central (it should encrypt
 * with it), Insufficient Authentication when it has none (it should pair); an encrypted one
 * whose key is not authenticated, or not Secure Connections where `sc` is asked, is
 * Insufficient Authentication; `sc` with a key under 16 octets is Insufficient Encryption Key Size.
 */
export function securityShortfall(permission: AttPermission, link: AttLink): number | undefined {
  if (permission === 'open' || permission === 'none') return undefined;
  if (!link.encrypted())
    return link.bonded?.()
      ? ATT_ERROR.insufficientEncryption
      : ATT_ERROR.insufficientAuthentication;
  if (permission === 'encrypt' || permission === 'encrypted') return undefined;
  const key = link.key?.() ?? { authenticated: false, sc: false, keySize: FULL_KEY_SIZE };
  if (!key.authenticated) return ATT_ERROR.insufficientAuthentication;
  if (permission === 'authenticate') return undefined;
  if (!key.sc) return ATT_ERROR.insufficientAuthentication;
  return key.keySize < FULL_KEY_SIZE ? ATT_ERROR.insufficientEncryptionKeySize : undefined;
}
