// How a link is secured, as nRF Connect for Desktop's link panel says it: the pairing method,
// the key (LE Secure Connections or legacy, authenticated or not, its size) and whether the
// station kept a bond (docs/decisions.md, "Pairing as a phone does"). A link encrypted some
// other way says only that it is.
import { LinkFact } from './LinkFact';
import type { LinkSecurity } from '../../../core/ble/link-parameters';

type Method = NonNullable<LinkSecurity['method']>;

const METHOD_LABELS: Record<Method, string> = {
  justWorks: 'Just Works',
  numericComparison: 'Numeric Comparison',
  passkeyEntry: 'Passkey Entry',
  oob: 'Out of band',
};

/** "LE Secure Connections · authenticated · 16 octets", each part only where it is known. */
function keyLabel(security: LinkSecurity): string {
  const parts = [
    security.key === 'sc' ? 'LE Secure Connections' : security.key === 'legacy' ? 'LE legacy' : '',
    security.key === undefined ? '' : security.authenticated ? 'authenticated' : 'unauthenticated',
    security.keySize === undefined ? '' : `${security.keySize} octets`,
  ].filter((part) => part !== '');
  return parts.length === 0 ? 'Encrypted' : parts.join(' · ');
}

export function LinkSecurityFacts({ security }: { security: LinkSecurity | undefined }) {
  if (!security?.encrypted) return null;
  return (
    <>
      <LinkFact label="Pairing" testId="link-pairing">
        {security.method === undefined ? '—' : METHOD_LABELS[security.method]}
      </LinkFact>
      <LinkFact label="Key" testId="link-key">
        {keyLabel(security)}
      </LinkFact>
      <LinkFact label="Bond" testId="link-bond">
        <span className={security.bonded ? 'good' : undefined}>
          {security.bonded ? 'Bonded' : 'Not bonded'}
        </span>
      </LinkFact>
    </>
  );
}
