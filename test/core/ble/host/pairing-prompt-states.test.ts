// The BLE process's prompts as every window sees them: one id per prompt, sent again as it is
// answered and as its pairing ends (with the reason in words), listed for a window that opens
// while one waits, and ended by the SMP's 30 s when nobody answers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PairingPrompts } from '../../../../src/core/ble/host/pairing-prompts';
import type { PairingPrompt } from '../../../../src/core/ble/link-parameters';

describe('pairing prompts', () => {
  let shown: PairingPrompt[];
  let clock: number;
  let prompts: PairingPrompts;

  beforeEach(() => {
    vi.useFakeTimers();
    shown = [];
    clock = 1_000;
    prompts = new PairingPrompts(
      (p) => shown.push(p),
      (deviceId) =>
        deviceId === 'e82b7c002001' ? { connectionId: 'c1', board: 'DB Zephyr Secure' } : undefined,
      () => clock,
    );
  });
  afterEach(() => vi.useRealTimers());

  it('says a passkey is wanted, then that it was answered, then that the board paired', async () => {
    const typed = prompts.userFor('e82b7c002001').enterPasskey();
    expect(shown).toEqual([
      {
        id: '1',
        kind: 'enterPasskey',
        deviceId: 'e82b7c002001',
        connectionId: 'c1',
        board: 'DB Zephyr Secure',
        timeoutMs: 30_000,
        remainingMs: 30_000,
        state: 'open',
      },
    ]);
    clock += 12_000;
    // A window that opens now shows what is left of the 30 s.
    expect(prompts.list()).toMatchObject([{ id: '1', state: 'open', remainingMs: 18_000 }]);
    prompts.answer({ deviceId: 'e82b7c002001', passkey: 246801 });
    expect(await typed).toBe(246801);
    expect(shown[1]).toMatchObject({ id: '1', state: 'answered' });
    // Answered: a second answer (from another window) finds nothing waiting.
    expect(() => prompts.answer({ deviceId: 'e82b7c002001', passkey: 1 })).toThrow(
      'no pairing with e82b7c002001 waits for an answer',
    );
    prompts.ended('e82b7c002001', undefined);
    expect(shown[2]).toMatchObject({ id: '1', state: 'paired', remainingMs: 0 });
    expect(shown[2]).not.toHaveProperty('message');
    expect(prompts.list()).toEqual([]);
  });

  it('ends a rejected comparison with the pairing’s reason in words', async () => {
    const same = prompts.userFor('aabbccddeeff').confirmNumber(42);
    expect(shown[0]).toMatchObject({ kind: 'confirmNumber', value: 42, state: 'open' });
    expect(shown[0]).not.toHaveProperty('connectionId', expect.anything());
    prompts.answer({ deviceId: 'aabbccddeeff', confirm: false });
    expect(await same).toBe(false);
    prompts.ended(
      'aabbccddeeff',
      new Error('the station stopped pairing: 0x0c numeric comparison failed'),
    );
    expect(shown.at(-1)).toMatchObject({
      state: 'failed',
      message: 'the station stopped pairing: 0x0c numeric comparison failed',
    });
  });

  it('gives up after the SMP’s 30 s and says nobody answered', async () => {
    const typed = prompts.userFor('e82b7c002001').enterPasskey();
    const outcome = typed.catch((err: unknown) => err);
    vi.advanceTimersByTime(30_000);
    expect(await outcome).toBeInstanceOf(Error);
    // The Security Manager stops the pairing for want of the passkey, and says why.
    prompts.ended(
      'e82b7c002001',
      new Error('the station stopped pairing: 0x01 passkey entry failed'),
    );
    expect(shown.at(-1)).toMatchObject({
      state: 'failed',
      message:
        'no answer at the station within 30 s (the SMP timeout), so the station stopped pairing: 0x01 passkey entry failed',
    });
    expect(() => prompts.answer({ deviceId: 'e82b7c002001', passkey: 246801 })).toThrow(
      'waits for an answer',
    );
  });

  it('keeps a passkey the station shows until the pairing ends', () => {
    prompts.userFor('e82b7c002001').displayPasskey(1234);
    expect(prompts.list()).toMatchObject([{ kind: 'displayPasskey', passkey: 1234 }]);
    prompts.ended(
      'e82b7c002001',
      new Error('the board refused pairing: 0x04 confirm value failed'),
    );
    expect(shown.at(-1)).toMatchObject({ kind: 'displayPasskey', state: 'failed' });
    expect(prompts.list()).toEqual([]);
  });
});
