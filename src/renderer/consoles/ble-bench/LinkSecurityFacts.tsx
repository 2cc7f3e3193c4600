// How a link is secured, as nRF Connect for Desktop's link panel says it: the pairing method,
// the key (LE Secure Connections or legacy, authenticated or not, its size) and whether the
// station kept a bond (docs/decisions.md, "Pairing as a phone does"). A link encrypted some
// other way says only that it is.
import { LinkFact } from './LinkFact';
import type { LinkSecurity } from '../../../core/ble/link-parameters';
import { keyLabel, methodLabel } from '../../lib/link-security-words';

export function LinkSecurityFacts({ security }: { security: LinkSecurity | undefined }) {
  if (!security?.encrypted) return null;
  return (
    <>
      <LinkFact label="Pairing" testId="link-pairing">
        {methodLabel(security)}
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
