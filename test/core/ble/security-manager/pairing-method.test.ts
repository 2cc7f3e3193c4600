// The association model table (Vol 3, Part H, 2.3.5.1) by its properties, over every
// combination of IO capabilities, OOB, MITM and Secure Connections flags, and a few cells as
// the spec prints them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IO_CAPABILITIES,
  isAuthenticated,
  pairingMethod,
  type IoCapability,
  type PairingFeatures,
  type PairingMethod,
} from '../../../../src/core/ble/security-manager/pairing-method';

const features = fc.record({
  io: fc.constantFrom(...IO_CAPABILITIES),
  oob: fc.boolean(),
  mitm: fc.boolean(),
  sc: fc.boolean(),
});
const withoutOob = features.map((f) => ({ ...f, oob: false }));

const CAN_DISPLAY: IoCapability[] = ['displayOnly', 'displayYesNo', 'keyboardDisplay'];
const CAN_TYPE: IoCapability[] = ['keyboardOnly', 'keyboardDisplay'];
const CAN_CONFIRM: IoCapability[] = ['displayYesNo', 'keyboardDisplay'];

function mirrored(method: PairingMethod): PairingMethod {
  if (method.model !== 'passkeyEntry' || method.display === 'neither') return method;
  return {
    model: 'passkeyEntry',
    display: method.display === 'initiator' ? 'responder' : 'initiator',
  };
}

describe('pairing method table', () => {
  it('is Just Works when neither side asks for MITM protection', () => {
    fc.assert(
      fc.property(withoutOob, withoutOob, (i, r) => {
        fc.pre(!i.mitm && !r.mitm);
        expect(pairingMethod(i, r)).toEqual({ model: 'justWorks' });
      }),
    );
  });

  it('is Just Works when either side has no input and no output', () => {
    fc.assert(
      fc.property(withoutOob, withoutOob, (i, r) => {
        fc.pre(i.io === 'noInputNoOutput' || r.io === 'noInputNoOutput');
        expect(pairingMethod(i, r)).toEqual({ model: 'justWorks' });
      }),
    );
  });

  it('uses OOB when both sides have data (legacy) or either has (Secure Connections)', () => {
    fc.assert(
      fc.property(features, features, (i, r) => {
        const sc = i.sc && r.sc;
        const oob = sc ? i.oob || r.oob : i.oob && r.oob;
        expect(pairingMethod(i, r).model === 'oob').toBe(oob);
      }),
    );
  });

  it('never compares numbers in a legacy pairing, and only between sides that can confirm', () => {
    fc.assert(
      fc.property(withoutOob, withoutOob, (i, r) => {
        if (pairingMethod(i, r).model !== 'numericComparison') return;
        expect(i.sc && r.sc).toBe(true);
        expect(CAN_CONFIRM).toContain(i.io);
        expect(CAN_CONFIRM).toContain(r.io);
      }),
    );
  });

  it('shows a passkey on a side that can display and has it typed on one with a keyboard', () => {
    fc.assert(
      fc.property(withoutOob, withoutOob, (i, r) => {
        const method = pairingMethod(i, r);
        if (method.model !== 'passkeyEntry') return;
        if (method.display === 'neither') {
          expect([i.io, r.io]).toEqual(['keyboardOnly', 'keyboardOnly']);
          return;
        }
        const [shows, types] = method.display === 'initiator' ? [i, r] : [r, i];
        expect(CAN_DISPLAY).toContain(shows.io);
        expect(CAN_TYPE).toContain(types.io);
      }),
    );
  });

  it('is the same association whichever side initiates', () => {
    fc.assert(
      fc.property(withoutOob, withoutOob, (i, r) => {
        fc.pre(i.io !== r.io);
        expect(pairingMethod(r, i)).toEqual(mirrored(pairingMethod(i, r)));
      }),
    );
  });

  it('Secure Connections changes a legacy method only into numeric comparison', () => {
    fc.assert(
      fc.property(withoutOob, withoutOob, (i, r) => {
        const legacy = pairingMethod({ ...i, sc: false }, r);
        const secure = pairingMethod({ ...i, sc: true }, { ...r, sc: true });
        if (secure.model !== 'numericComparison') expect(secure).toEqual(legacy);
      }),
    );
  });

  it('calls every method but Just Works authenticated', () => {
    fc.assert(
      fc.property(features, features, (i, r) => {
        const method = pairingMethod(i, r);
        expect(isAuthenticated(method)).toBe(method.model !== 'justWorks');
      }),
    );
  });

  const side = (io: IoCapability, sc: boolean): PairingFeatures => ({
    io,
    sc,
    mitm: true,
    oob: false,
  });
  it.each([
    ['keyboardDisplay', 'keyboardDisplay', false, { model: 'passkeyEntry', display: 'initiator' }],
    ['keyboardDisplay', 'keyboardDisplay', true, { model: 'numericComparison' }],
    ['keyboardOnly', 'displayOnly', true, { model: 'passkeyEntry', display: 'responder' }],
    ['displayYesNo', 'keyboardOnly', true, { model: 'passkeyEntry', display: 'initiator' }],
    ['keyboardOnly', 'keyboardOnly', true, { model: 'passkeyEntry', display: 'neither' }],
    ['displayYesNo', 'displayYesNo', false, { model: 'justWorks' }],
    ['displayYesNo', 'displayOnly', true, { model: 'justWorks' }],
  ] as const)('initiator %s, responder %s, SC %s: as the spec’s table', (i, r, sc, method) => {
    expect(pairingMethod(side(i, sc), side(r, sc))).toEqual(method);
  });
});
