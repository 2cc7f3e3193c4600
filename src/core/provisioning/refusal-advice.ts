// A board's refusal in words for a provisioning run: what was refused, the likely cause, and
// what to do instead (docs/provisioning-protocol.md, "The tool's steps").
import type { ProvisioningStep } from '../audit/records';
import { formatUuid } from '../ble/port';
import { ATT_ERROR, describeLengthRefusal } from '../ble/att/codes';
import {
  PROFILE_CHARACTERISTIC_NAMES,
  type ProvisioningProfile,
} from '../ble/provisioning-profile';
import type { Refusal } from './faults';

export function refusalMessage(
  profile: ProvisioningProfile,
  {
    step,
    refusal,
    value,
    written,
  }: {
    step: ProvisioningStep;
    refusal: Refusal;
    value: keyof ProvisioningProfile['characteristics'] | undefined;
    written: number | undefined;
  },
): string {
  const what = value
    ? `the write of ${PROFILE_CHARACTERISTIC_NAMES[value]} (${formatUuid(profile.characteristics[value])})`
    : step === 'verify'
      ? 'the read-back of the PSDI'
      : `the ${step}`;
  let advice: string;
  if (refusal.code === ATT_ERROR.invalidAttributeValueLength && written !== undefined) {
    const expected =
      value === 'psdi'
        ? `a PSDI of up to ${profile.psdi.maxBytes} bytes (psdi.maxBytes)`
        : `UUIDs as ${profile.uuidEncoding === 'bytes' ? '16 bytes' : 'their 36-character text'} (uuidEncoding "${profile.uuidEncoding}")`;
    advice = `${describeLengthRefusal(written)}; profile ${profile.id} writes ${expected}: the firmware expects another length, so check the profile against it`;
  } else if (refusal.security) {
    advice = `likely cause: the board requires a paired, encrypted link that this pairing did not give; ${
      profile.security.level === 1
        ? 'if the product needs an authenticated link, use a profile whose security.level says so: the station then pairs first, with the board’s passkey'
        : 'allow pairing on the board and try again'
    }`;
  } else if (step === 'verify') {
    advice =
      "likely cause: the firmware does not let the product's PSDI characteristic be read; check its read permission";
  } else {
    // Every step that reaches the board comes after the layout check, so its GATT fits the
    // profile: the firmware refuses by its own rule, and another profile would not change
    // that (docs/decisions.md, "Diagnoses that fit the evidence").
    const writable = value ? ` (the ${value} characteristic allows write)` : '';
    advice = `its GATT matches profile ${profile.id}${writable}, so the firmware itself refuses it: check whether it takes writes only when unlocked or not yet provisioned, and what values it accepts`;
  }
  return `the board refused ${what} with ${refusal.what}; ${advice}`;
}
