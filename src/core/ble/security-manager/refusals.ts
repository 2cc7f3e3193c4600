// SMP Pairing Failed reasons in words, each with what to do about it (Bluetooth Core
// Specification v5.3, Vol 3, Part H, 3.5.5), so a refused pairing is said once, the same way,
// in every front end.
import { SMP_FAILURE } from '../hci/codes';

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

/** A failed pairing in words: who ended it, the reason, what to do. */
export function pairingFailureMessage(reason: number, byBoard: boolean): string {
  if (!byBoard && reason === SMP_FAILURE.authenticationRequirements)
    return `pairing stopped: ${STATION_AUTH_REQUIREMENTS}`;
  return `${byBoard ? 'the board refused pairing' : 'pairing stopped'}: ${describeSmpFailure(reason)}`;
}
