// SMP Pairing Failed reasons in words, each with what to do about it (Bluetooth Core
// Specification v5.3, Vol 3, Part H, 3.5.5), so a refused pairing is said once, the same way,
// in every front end.
import { SMP_FAILURE } from '../hci/codes';
import {
  isAuthenticated,
  pairingMethod,
  type IoCapability,
  type PairingFeatures,
} from './pairing-method';

/** What each side said in a pairing: the station's ask and, once it answered, the board's. */
export interface PairingContext {
  station: { io: IoCapability; mitm: boolean; sc: boolean };
  board?: PairingFeatures;
  /**
   * What the front end whose person pairs offers for claiming a keyboard (PairingUser's
   * `claimAdvice`): the window names its own forms, never the command line's flags.
   */
  claimAdvice?: string;
}

/** The specification's name of an IO capability ("NoInputNoOutput"), as the pairing form says it. */
function ioName(io: IoCapability): string {
  return io.charAt(0).toUpperCase() + io.slice(1);
}

/**
 * What to claim instead, where the front end says nothing of its own (the command line's
 * words): its flags, the link card's pairing form, and for provisioning a profile stating the
 * level (it pairs first and asks for the passkey in view).
 */
const CLAIM_A_KEYBOARD =
  'claim a keyboard so its passkey can be typed: give the passkey on the command line with --passkey or --passkey-env (the station then claims KeyboardOnly; or --io-capability keyboardDisplay), KeyboardDisplay in the link card’s pairing form, or, to provision it, a profile whose security.level is the one the board needs (the window then asks for its passkey)';

/**
 * Whether the station's own IO capability is why the pairing could not be authenticated: the
 * board could give MITM to a station with a keyboard and display, and this one claimed less.
 */
function stationIoIsWhy({ station, board }: PairingContext): boolean {
  if (!board) return station.io === 'noInputNoOutput';
  const asked = { io: station.io, oob: false, mitm: true, sc: station.sc };
  const claimed = pairingMethod(asked, board);
  const withKeyboard = pairingMethod({ ...asked, io: 'keyboardDisplay' }, board);
  return !isAuthenticated(claimed) && isAuthenticated(withKeyboard);
}

const REASONS: Record<number, { name: string; advice: string }> = {
  [SMP_FAILURE.passkeyEntryFailed]: {
    name: 'passkey entry failed',
    advice: 'the passkey was cancelled or not given: try again and enter it in time',
  },
  [SMP_FAILURE.oobNotAvailable]: { name: 'OOB not available', advice: 'pair without OOB data' },
  [SMP_FAILURE.authenticationRequirements]: {
    name: 'authentication requirements',
    advice: 'it needs MITM: give its passkey (an IO capability with a keyboard or display)',
  },
  [SMP_FAILURE.confirmValueFailed]: {
    name: 'confirm value failed',
    advice: 'the passkey did not match: check the number and pair again',
  },
  [SMP_FAILURE.pairingNotSupported]: {
    name: 'pairing not supported',
    advice: 'the board takes no pairing now; check its firmware allows pairing',
  },
  [SMP_FAILURE.encryptionKeySize]: {
    name: 'encryption key size',
    advice: 'the key size offered is below what the board needs',
  },
  [SMP_FAILURE.commandNotSupported]: {
    name: 'command not supported',
    advice: 'the board lacks this pairing (a legacy-only board asked for Secure Connections?)',
  },
  [SMP_FAILURE.unspecifiedReason]: {
    name: 'unspecified reason',
    advice: 'the board may refuse to pair again while bonded: forget the bond on the board',
  },
  [SMP_FAILURE.repeatedAttempts]: {
    name: 'repeated attempts',
    advice: 'the board backs off after failed pairings: wait before trying again',
  },
  [SMP_FAILURE.invalidParameters]: {
    name: 'invalid parameters',
    advice: 'a pairing PDU was malformed; the HCI trace shows which',
  },
  [SMP_FAILURE.dhKeyCheckFailed]: {
    name: 'DHKey check failed',
    advice: 'the two sides derived different keys: the passkey or comparison was wrong',
  },
  [SMP_FAILURE.numericComparisonFailed]: {
    name: 'numeric comparison failed',
    advice: 'the six digits were not confirmed on both sides',
  },
  [SMP_FAILURE.keyRejected]: {
    name: 'key rejected',
    advice: 'the board rejects the key (a weak or debug key?)',
  },
};

/** "0x03 authentication requirements — it needs MITM: give its passkey (…)". */
function describeSmpFailure(reason: number): string {
  const code = `0x${reason.toString(16).padStart(2, '0')}`;
  const known = REASONS[reason];
  return known
    ? `${code} ${known.name} — ${known.advice}`
    : `${code} (a reason this tool does not know)`;
}

/** What this side's own Authentication Requirements stop means: the board cannot give it. */
const STATION_AUTH_REQUIREMENTS =
  '0x03 authentication requirements — the board cannot give the protection asked for (MITM needs a passkey or comparison it has no means for; Secure Connections only and it answered legacy): ask for less, or check its IO capability';

/**
 * A failed pairing in words: who ended it, the reason, what to do. With the pairing's
 * `context`, an Authentication Requirements failure the station's own IO capability caused says
 * so, and what to claim instead.
 */
export function pairingFailureMessage(
  reason: number,
  byBoard: boolean,
  context?: PairingContext,
): string {
  const who = byBoard ? 'the board refused pairing' : 'the station stopped pairing';
  if (reason === SMP_FAILURE.authenticationRequirements && context && stationIoIsWhy(context))
    return `${who}: 0x03 authentication requirements — the board needs MITM, and this station claimed ${ioName(context.station.io)}, which leaves only Just Works with it: ${context.claimAdvice ?? CLAIM_A_KEYBOARD}`;
  if (
    !byBoard &&
    reason === SMP_FAILURE.authenticationRequirements &&
    context?.board?.io === 'noInputNoOutput'
  )
    return `${who}: 0x03 authentication requirements — MITM was asked, and the board has neither display nor keyboard (NoInputNoOutput), so it can only pair by Just Works: ask for less (no MITM), or use firmware that shows a passkey`;
  if (!byBoard && reason === SMP_FAILURE.authenticationRequirements)
    return `${who}: ${STATION_AUTH_REQUIREMENTS}`;
  return `${who}: ${describeSmpFailure(reason)}`;
}
