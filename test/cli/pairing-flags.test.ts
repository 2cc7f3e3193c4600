// The pairing flags: checked before anything opens (a bad one is exit 2 naming the flag or the
// variable), and turned into the Security Manager's policy a CI job can pair with.
import { describe, expect, it } from 'vitest';
import { pairingFlags, pairingPolicy } from '../../src/cli/pairing-flags';
import { runCli, tempDir } from './run-cli';

describe('pairing flags', () => {
  it('take the passkey from a flag or a variable, and bonding unless --no-bond', () => {
    expect(pairingFlags({})).toEqual({ io: 'noInputNoOutput', bond: true });
    expect(pairingFlags({ ioCapability: 'keyboardOnly', passkey: '004711', bond: false })).toEqual({
      io: 'keyboardOnly',
      bond: false,
      passkey: 4711,
    });
    expect(
      pairingFlags({ passkeyEnv: 'BOARD_PASSKEY' }, { BOARD_PASSKEY: ' 123456\n' }),
    ).toMatchObject({
      passkey: 123456,
    });
  });

  it('claim a keyboard when given the board’s passkey, unless --io-capability says otherwise', () => {
    expect(pairingFlags({ passkey: '246801' })).toEqual({
      io: 'keyboardOnly',
      bond: true,
      passkey: 246801,
    });
    expect(pairingFlags({ passkeyEnv: 'P' }, { P: '246801' })).toMatchObject({
      io: 'keyboardOnly',
    });
    expect(pairingFlags({ passkey: '246801', ioCapability: 'keyboardDisplay' })).toMatchObject({
      io: 'keyboardDisplay',
    });
  });

  it('refuse a bad passkey, a missing variable, both at once and an unknown IO capability', () => {
    expect(() => pairingFlags({ passkey: '12345' })).toThrow('--passkey: must be six digits');
    expect(() => pairingFlags({ passkeyEnv: 'NOPE' }, {})).toThrow(
      '--passkey-env: NOPE is not set',
    );
    expect(() => pairingFlags({ passkeyEnv: 'P' }, { P: 'abcdef' })).toThrow(
      'P: must be six digits',
    );
    expect(() => pairingFlags({ passkey: '123456', passkeyEnv: 'P' })).toThrow(
      '--passkey: give the passkey or --passkey-env, not both',
    );
    expect(() => pairingFlags({ ioCapability: 'keypad' })).toThrow(
      '--io-capability: must be one of',
    );
  });

  it('ask for MITM when the station claims input or output, without needing it, and answer the board’s prompts', async () => {
    const said: string[] = [];
    const typed = pairingPolicy({ io: 'keyboardOnly', bond: true, passkey: 42 }, (l) =>
      said.push(l),
    );
    // Asked, not needed: a board whose IO capabilities leave Just Works pairs so and judges it.
    expect(typed.options).toEqual({
      io: 'keyboardOnly',
      bond: true,
      mitm: true,
      requireMitm: false,
      sc: true,
    });
    expect(await typed.user.enterPasskey()).toBe(42);
    typed.user.displayPasskey(7);
    expect(await typed.user.confirmNumber(123)).toBe(true);
    expect(said).toEqual([
      'pairing: type 000007 on the board',
      'pairing: numeric comparison 000123 accepted (no one to ask)',
    ]);
    const none = pairingPolicy({ io: 'noInputNoOutput', bond: false }, () => undefined);
    expect(none.options.mitm).toBe(false);
    await expect(none.user.enterPasskey()).rejects.toThrow(
      'give it with --passkey or --passkey-env',
    );
  });

  it('are checked by the command before the radio opens', { timeout: 60_000 }, async () => {
    const run = await runCli([
      'scan',
      '--for',
      '1',
      '--passkey',
      '12',
      '--data-dir',
      tempDir('pairing'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--passkey: must be six digits');
  });
});
