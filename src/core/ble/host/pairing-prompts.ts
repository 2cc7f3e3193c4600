// The person at the station, for the BLE process: when a pairing needs a passkey typed, a number
// confirmed or a passkey shown, the process says so as an event, and the answer comes back as a
// call. The process keeps each prompt until its pairing ends and sends it again whenever it
// moves (answered, paired, failed), so every window shows the same prompt and an answer given
// in one closes it in the others (docs/decisions.md, "Pairing as a phone does"). The SMP's 30 s
// bound the wait: a prompt left unanswered ends the pairing, and a late answer is refused.
import type { z } from 'zod';
import type { PairingPrompt, pairingAnswerSchema } from '../link-parameters';
import { BleError } from '../port';
import { SMP_TIMEOUT_MS, type PairingUser } from '../security-manager/initiator';

export type { PairingPrompt };
type Ask = DistributiveOmit<
  PairingPrompt,
  | 'id'
  | 'deviceId'
  | 'connectionId'
  | 'board'
  | 'timeoutMs'
  | 'remainingMs'
  | 'state'
  | 'message'
  | 'inRun'
>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type PairingAnswer = z.infer<typeof pairingAnswerSchema>;

/** The link a board's pairing runs on, as the link book knows it. */
export interface PromptLink {
  connectionId: string;
  board: string;
  /** A provisioning run holds the link (link-record.ts's `user`). */
  inRun?: boolean;
}

interface Entry {
  prompt: PairingPrompt;
  /** When the SMP's limit for this prompt runs out (ms since the epoch). */
  deadline: number;
  /** The person let the limit run out. */
  timedOut: boolean;
}

/**
 * A pairing refused for want of a keyboard, in the window's words: only what the window offers
 * (the command line's flags are no use there; refusals.ts keeps those for the CLI).
 */
const WINDOW_CLAIM_ADVICE =
  'pair it from the link card’s pairing form with KeyboardDisplay, or provision it with a profile at the security level the board needs (the window then asks for its passkey)';

export class PairingPrompts {
  /** The prompt each board's pairing waits on, by noble's id for the board. */
  private readonly waiting = new Map<string, (answer: PairingAnswer | undefined) => void>();
  /** Prompts whose pairing has not ended, by id. */
  private readonly entries = new Map<string, Entry>();
  private next = 1;

  constructor(
    private readonly show: (prompt: PairingPrompt) => void,
    private readonly linkOf: (deviceId: string) => PromptLink | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The person for one board's pairing. */
  userFor(deviceId: string): PairingUser {
    return {
      claimAdvice: WINDOW_CLAIM_ADVICE,
      displayPasskey: (passkey) => void this.open(deviceId, { kind: 'displayPasskey', passkey }),
      enterPasskey: async () => {
        const answer = await this.ask(deviceId, { kind: 'enterPasskey' });
        if (answer?.passkey === undefined) throw new Error('no passkey was given');
        return answer.passkey;
      },
      confirmNumber: async (value) =>
        (await this.ask(deviceId, { kind: 'confirmNumber', value }))?.confirm === true,
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
    resolve(answer);
  }

  /** The prompts whose pairing has not ended, as a window that opens now should show them. */
  list(): PairingPrompt[] {
    return [...this.entries.values()].map((entry) => this.current(entry));
  }

  /**
   * A board's pairing ended: its prompts say how (`paired`, or `failed` with the reason in
   * words), then are gone.
   */
  ended(deviceId: string, outcome: Error | undefined): void {
    this.waiting.get(deviceId)?.(undefined);
    for (const [id, entry] of this.entries) {
      if (entry.prompt.deviceId !== deviceId) continue;
      this.entries.delete(id);
      const message =
        outcome &&
        (entry.timedOut
          ? `no answer at the station within ${SMP_TIMEOUT_MS / 1000} s (the SMP timeout), so ${outcome.message}`
          : outcome.message);
      this.show({
        ...entry.prompt,
        remainingMs: 0,
        state: outcome ? 'failed' : 'paired',
        ...(message !== undefined && { message }),
      });
    }
  }

  private open(deviceId: string, ask: Ask): Entry {
    const link = this.linkOf(deviceId);
    const entry: Entry = {
      prompt: {
        id: String(this.next++),
        deviceId,
        connectionId: link?.connectionId,
        board: link?.board,
        ...(link?.inRun && { inRun: true }),
        timeoutMs: SMP_TIMEOUT_MS,
        remainingMs: SMP_TIMEOUT_MS,
        state: 'open',
        ...ask,
      },
      deadline: this.now() + SMP_TIMEOUT_MS,
      timedOut: false,
    };
    this.entries.set(entry.prompt.id, entry);
    this.show(entry.prompt);
    return entry;
  }

  private current(entry: Entry): PairingPrompt {
    return { ...entry.prompt, remainingMs: Math.max(0, entry.deadline - this.now()) };
  }

  /**
   * Waits for the person's answer; undefined once the pairing ended meanwhile or the limit ran
   * out, which the Security Manager takes as no answer (it stops the pairing with its reason).
   */
  private ask(
    deviceId: string,
    ask: Exclude<Ask, { kind: 'displayPasskey' }>,
  ): Promise<PairingAnswer | undefined> {
    const entry = this.open(deviceId, ask);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        entry.timedOut = true;
        done(undefined);
      }, SMP_TIMEOUT_MS);
      timer.unref();
      const done = (answer: PairingAnswer | undefined) => {
        clearTimeout(timer);
        if (this.waiting.get(deviceId) === done) this.waiting.delete(deviceId);
        if (answer && this.entries.has(entry.prompt.id)) {
          entry.prompt = { ...entry.prompt, state: 'answered' };
          this.show(this.current(entry));
        }
        resolve(answer);
      };
      this.waiting.set(deviceId, done);
    });
  }
}
