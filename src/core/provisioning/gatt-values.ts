// The values a GATT profile's session writes, and the PSDI a board's firmware derived as read
// from it (docs/provisioning-protocol.md).
import { encodeUuid, type ProvisioningProfile } from '../ble/provisioning-profile';
import { checkPsdi, PsdiError } from '../audit/psdi';
import { FatalStepError } from './step-failures';
import type { ProductTarget } from './steps';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Each characteristic the profile writes, with its bytes, in the order they are written. */
export function valuesToWrite(
  profile: ProvisioningProfile,
  product: ProductTarget,
  psdi: string,
): [keyof ProvisioningProfile['characteristics'], Uint8Array][] {
  const values: [keyof ProvisioningProfile['characteristics'], Uint8Array][] = [
    ['serviceUuid', encodeUuid(profile, product.serviceUuid)],
    ['psdiServiceUuid', encodeUuid(profile, product.psdiServiceUuid)],
    ['psdiCharacteristicUuid', encodeUuid(profile, product.psdiCharacteristicUuid)],
  ];
  if (profile.psdi.source === 'tool') values.push(['psdi', new TextEncoder().encode(psdi)]);
  return values;
}

/** Device source: the PSDI the board's firmware derived, checked as any PSDI is. */
export function boardPsdi(profile: ProvisioningProfile, data: Uint8Array, attempt: number): string {
  try {
    const psdi = decoder.decode(data);
    checkPsdi(psdi, profile.psdi.maxBytes);
    return psdi;
  } catch (err) {
    const message = `the board's PSDI is unusable: ${err instanceof PsdiError ? err.message : 'not UTF-8'}`;
    throw new FatalStepError('read-psdi', message, attempt);
  }
}
