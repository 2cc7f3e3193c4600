// A pairing refused for want of a keyboard is said in the words of the front end whose person
// pairs (issue 45, point 3): the window's PairingUser names its own pairing form and the
// profile's level, never the command line's flags; without advice of its own, the CLI's words
// (--passkey, --passkey-env, --io-capability) stay.
import { describe, expect, it } from 'vitest';
import { PairingPrompts } from '../../../../src/core/ble/host/pairing-prompts';
import { SMP_FAILURE } from '../../../../src/core/ble/hci/codes';
import { PairingFailedError } from '../../../../src/core/ble/security-manager/initiator';

const zephyr = { io: 'displayOnly', oob: false, mitm: true, sc: true } as const;
const unattended = { io: 'noInputNoOutput', mitm: false, sc: true } as const;

function refusedWith(claimAdvice: string | undefined): string {
  return new PairingFailedError(SMP_FAILURE.authenticationRequirements, true, {
    context: { station: unattended, board: zephyr, claimAdvice },
  }).message;
}

describe('the words for a pairing refused for want of a keyboard', () => {
  it('name only what the window offers when the window’s person pairs', () => {
    const windowUser = new PairingPrompts(
      () => undefined,
      () => undefined,
    ).userFor('board-1');
    const words = refusedWith(windowUser.claimAdvice);
    expect(words).toContain('this station claimed NoInputNoOutput');
    expect(words).toContain('the link card’s pairing form');
    expect(words).toContain('security level the board needs');
    expect(words).not.toMatch(/--passkey|--passkey-env|--io-capability|command line/);
  });

  it('keep the command line’s flags where the front end offers no words of its own', () => {
    const words = refusedWith(undefined);
    expect(words).toContain('--passkey or --passkey-env');
    expect(words).toContain('--io-capability keyboardDisplay');
  });
});
