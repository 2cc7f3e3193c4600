// How a link's security is said, as nRF Connect for Desktop's link panel says it: the pairing
// method, and the key (LE Secure Connections or legacy, authenticated or not, its size). One
// wording for the BLE bench's link card and a dry run's timeline (docs/decisions.md, "Pairing
// as a phone does").
import type { LinkSecurity } from '../../core/ble/link-parameters';

type Method = NonNullable<LinkSecurity['method']>;

const METHOD_LABELS: Record<Method, string> = {
  justWorks: 'Just Works',
  numericComparison: 'Numeric Comparison',
  passkeyEntry: 'Passkey Entry',
  oob: 'Out of band',
};

/** The pairing method's name, or "—" for a link encrypted some other way. */
export function methodLabel(security: LinkSecurity): string {
  return security.method === undefined ? '—' : METHOD_LABELS[security.method];
}

/** "LE Secure Connections · authenticated · 16 octets", each part only where it is known. */
export function keyLabel(security: LinkSecurity): string {
  const parts = [
    security.key === 'sc' ? 'LE Secure Connections' : security.key === 'legacy' ? 'LE legacy' : '',
    security.key === undefined ? '' : security.authenticated ? 'authenticated' : 'unauthenticated',
    security.keySize === undefined ? '' : `${security.keySize} octets`,
  ].filter((part) => part !== '');
  return parts.length === 0 ? 'Encrypted' : parts.join(' · ');
}
