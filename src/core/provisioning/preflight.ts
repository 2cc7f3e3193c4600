// Does this board's GATT fit the profile? Checked on the discovered layout before a PSDI is
// reserved, so a board that cannot take the profile's writes costs nothing
// (docs/decisions.md, "Provisioning spends a PSDI only on a board that can take it").
import { formatUuid, type CharacteristicProperty, type ServiceInfo } from '../ble/port';
import {
  PROFILE_CHARACTERISTIC_NAMES,
  type ProvisioningProfile,
} from '../ble/provisioning-profile';
import { FatalStepError } from './step-failures';

type ValueName = keyof ProvisioningProfile['characteristics'];

/** What the tool does with each characteristic of the profile (docs/provisioning-protocol.md). */
function neededProperties(profile: ProvisioningProfile): Record<ValueName, CharacteristicProperty> {
  return {
    serviceUuid: 'write',
    psdiServiceUuid: 'write',
    psdiCharacteristicUuid: 'write',
    psdi: profile.psdi.source === 'tool' ? 'write' : 'read',
    control: 'write',
    status: 'read',
  };
}

/**
 * Why the board's layout does not fit `profile`, in words ("its PSDI characteristic … does not
 * allow write (it allows read)"), or undefined when it fits. Permissions are not part of GATT
 * discovery; the status read that follows is the first thing that proves them.
 */
export function layoutMismatch(
  profile: ProvisioningProfile,
  services: readonly ServiceInfo[],
): string | undefined {
  const service = services.find((s) => s.uuid === profile.service);
  if (!service)
    return `it does not expose the provisioning service ${formatUuid(profile.service)}; it may be provisioned already`;
  const problems: string[] = [];
  for (const [name, needed] of Object.entries(neededProperties(profile)) as [
    ValueName,
    CharacteristicProperty,
  ][]) {
    const uuid = profile.characteristics[name];
    const found = service.characteristics.find((c) => c.uuid === uuid);
    // Called as the profile calls it, the UUID beside: "its PSDI characteristic (8f1d0004-…)".
    const named = `${PROFILE_CHARACTERISTIC_NAMES[name]} characteristic (${formatUuid(uuid)})`;
    if (!found) problems.push(`it has no ${named}`);
    else if (!found.properties.includes(needed))
      problems.push(
        `its ${named} does not allow ${needed} (it allows ${found.properties.join(', ') || 'nothing'})`,
      );
  }
  return problems.length ? problems.join('; ') : undefined;
}

/** The profiles among `profiles` whose layout the board fits, other than `profile` itself. */
export function matchingProfiles(
  profile: ProvisioningProfile,
  services: readonly ServiceInfo[],
  profiles: readonly ProvisioningProfile[],
): ProvisioningProfile[] {
  return profiles.filter((p) => p.id !== profile.id && !layoutMismatch(p, services));
}

/** The skip reason a batch shows: the mismatch, and the profiles that fit the board, by name. */
export function describeMismatch(
  profile: ProvisioningProfile,
  mismatch: string,
  matching: readonly ProvisioningProfile[],
): string {
  const fits = matching.length
    ? `it matches ${matching.map((p) => `"${p.name}" (${p.id})`).join(' or ')}`
    : 'it matches none of the known profiles';
  return `does not match profile ${profile.id}: ${mismatch}; ${fits}. Nothing was reserved or written.`;
}

/** A later session (or a resumed record) finds the layout changed: nothing more to try. */
export function checkLayout(
  profile: ProvisioningProfile,
  services: readonly ServiceInfo[],
  attempt: number,
): void {
  const mismatch = layoutMismatch(profile, services);
  if (mismatch)
    throw new FatalStepError(
      'discover',
      `the board does not match profile ${profile.id}: ${mismatch}`,
      attempt,
    );
}
