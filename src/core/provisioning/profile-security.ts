// The security a profile says the product needs, reached on the board's link before anything is
// read or reserved (docs/decisions/ble-and-hci.md, "Pairing as a phone does"): a pairing that
// fails or falls short ends the run at its `pair` step and burns nothing.
import { failureWords, type BleConnection } from '../ble/port';
import type { ProvisioningProfile } from '../ble/provisioning-profile';
import { SECURITY_LEVELS } from '../ble/link-parameters';
import { PairingStepError } from './step-failures';

/**
 * The level the run pairs for before its first read — the profile's, or the authenticated one
 * the board's GATT asked for — or undefined when it needs no pairing (level 1, no bond).
 */
export function securityNeeded(
  profile: ProvisioningProfile,
  /** The board's GATT asked for an authenticated link the profile does not state. */
  boardAsked?: 3,
): 1 | 2 | 3 | 4 | undefined {
  const needed = Math.max(profile.security.level, boardAsked ?? 1) as 1 | 2 | 3 | 4;
  return needed === 1 && !profile.security.bond ? undefined : needed;
}

/**
 * Pairs the link up to `securityNeeded`, bonding where `profile.security.bond` asks. A
 * link already encrypted by a bond or the board's Security Request is taken as it is when it is
 * enough. Above level 2 the pairing asks for MITM, so the station's person types the board's
 * passkey or confirms its number, within the SMP's 30 s.
 */
export async function reachProfileSecurity(
  connection: BleConnection,
  profile: ProvisioningProfile,
  boardAsked?: 3,
): Promise<void> {
  const needed = securityNeeded(profile, boardAsked);
  if (needed === undefined) return;
  const { bond } = profile.security;
  const needs = `${
    needed === profile.security.level
      ? `the product needs ${SECURITY_LEVELS[needed]} (profile "${profile.id}")`
      : `the board asked for ${SECURITY_LEVELS[needed]} (Insufficient Authentication), which profile "${profile.id}" does not state`
  }; no PSDI was reserved`;
  if (!connection.requestLink)
    throw new PairingStepError(
      'pair',
      `this adapter cannot pair on request (no HCI access), and ${needs}`,
      1,
    );
  let level: 1 | 2 | 3 | 4;
  try {
    const link = await connection.requestLink({
      kind: 'pair',
      bond,
      mitm: needed >= 3 || undefined,
      sc: needed === 4 || undefined,
    });
    level = link.securityLevel;
  } catch (err) {
    throw new PairingStepError('pair', `pairing failed: ${failureWords(err)}; ${needs}`, 1, {
      cause: err,
    });
  }
  if (level < needed)
    throw new PairingStepError(
      'pair',
      `the link reached ${SECURITY_LEVELS[level]}, and ${needs}`,
      1,
    );
}
