// The person at the station, for the BLE process: when a pairing needs a passkey typed, a number
// confirmed or a passkey shown, the process says so as an event, and the answer comes back as a
// call. The Security Manager's 30 s SMP timeout bounds the wait (docs/decisions.md, "Pairing as a
// phone does"); a prompt left unanswered fails the pairing there, and a late answer is refused.
import type { z } from 'zod';
import type { pairingAnswerSchema, pairingPromptSchema } from '../link-parameters';
import { BleError } from '../port';
import { SMP_TIMEOUT_MS, type PairingUser } from '../security-manager/initiator';

export type PairingPrompt = z.infer<typeof pairingPromptSchema>;
type Ask = DistributiveOmit<PairingPrompt, 'deviceId' | 'connectionId' | 'timeoutMs'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type PairingAnswer = z.infer<typeof pairingAnswerSchema>;

export class PairingPrompts {
  /** The prompt each board's pairing waits on, by noble's id for the board. */
  private readonly waiting = new Map<string, (answer: PairingAnswer) => void>();

  constructor(
    private readonly show: (prompt: PairingPrompt) => void,
    private readonly connectionOf: (deviceId: string) => string | undefined,
  ) {}

  /** The person for one board's pairing. */
  userFor(deviceId: string): PairingUser {
    return {
      displayPasskey: (passkey) => this.prompt(deviceId, { kind: 'displayPasskey', passkey }),
      enterPasskey: async () => {
        const { passkey } = await this.ask(deviceId, { kind: 'enterPasskey' });
        if (passkey === undefined) throw new Error('no passkey was given');
        return passkey;
      },
      confirmNumber: async (value) =>
        (await this.ask(deviceId, { kind: 'confirmNumber', value })).confirm === true,
    };
  }

  /** The person's answer to the prompt a board's pairing waits on. */
  answer(answer: PairingAnswer): void {
    const resolve = this.waiting.get(answer.deviceId);
    if (!resolve)
      throw new BleError(
        'link',
        `no pairing with ${answer.deviceId} waits for an answer (it ended, or ${SMP_TIMEOUT_MS / 1000} s passed)`,
        answer.deviceId,
      );
    this.waiting.delete(answer.deviceId);
    resolve(answer);
  }

  private prompt(deviceId: string, ask: Ask): void {
    this.show({
      deviceId,
      connectionId: this.connectionOf(deviceId),
      timeoutMs: SMP_TIMEOUT_MS,
      ...ask,
    });
  }

  private ask(
    deviceId: string,
    ask: Exclude<Ask, { kind: 'displayPasskey' }>,
  ): Promise<PairingAnswer> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting.get(deviceId) === done) this.waiting.delete(deviceId);
      }, SMP_TIMEOUT_MS);
      timer.unref();
      const done = (answer: PairingAnswer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.waiting.set(deviceId, done);
      this.prompt(deviceId, ask);
    });
  }
}
