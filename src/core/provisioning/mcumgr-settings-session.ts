// A provisioning run's side of a stock Zephyr board (an MCUmgr settings profile): write the
// product's UUIDs and the PSDI to the profile's settings keys, save them to flash, reset, and
// verify the usual way once the firmware has read them at boot (docs/provisioning-protocol.md,
// "MCUmgr settings profiles"). Saving is the commit: until the save is answered the values are
// live in RAM only and lost at reset; once a save went out the board may carry the PSDI.
import { McumgrClient, McumgrError } from '../ble/mcumgr/client';
import { reset } from '../ble/mcumgr/os-group';
import {
  isKeyTooLong,
  readSettingIfSet,
  saveSettings,
  writeSetting,
} from '../ble/mcumgr/settings-group';
import type { Advertisement, BleCentral, BleConnection } from '../ble/port';
import { encodeUuid, type McumgrSettingsProfile } from '../ble/provisioning-profile';
import type { ProvisioningStep } from '../audit/records';
import { errorMessage } from '../errors/message';
import type { BoardWriter, SessionRecord } from './board-writer';
import { connectBoard } from './connect-board';
import { readPsdiSetting } from './psdi-setting';
import { CancelledError, FatalStepError, StepFailure } from './step-failures';
import {
  delay,
  type BoardRef,
  type ProductTarget,
  type ProvisionTiming,
  type StepReporter,
} from './steps';
import { findBoard, verifyUntilMatch } from './verify';

type ValueName = keyof McumgrSettingsProfile['keys'];

interface OpenLink {
  connection: BleConnection;
  client: McumgrClient;
}

/** The save went out and no answer says whether the board kept the values. */
class SaveUnknownError extends Error {
  constructor(cause: unknown) {
    super(`no answer to the settings save (${errorMessage(cause)})`, { cause });
  }
}

export class McumgrSettingsSession implements BoardWriter {
  board: BoardRef;
  mayCarry = false;
  psdiAcked = false;
  refused: McumgrError | undefined;
  sent = false;
  /** The keys the board acknowledged in the latest session. */
  private acked: ValueName[] = [];
  /** The latest save went out and its answer was lost. */
  private saveUnanswered = false;
  private early: OpenLink | undefined;

  constructor(
    private readonly central: BleCentral,
    private readonly profile: McumgrSettingsProfile,
    private readonly product: ProductTarget,
    private readonly timing: ProvisionTiming,
    private readonly reporter: StepReporter,
    private readonly signal: AbortSignal | undefined,
    given: Advertisement | BoardRef,
  ) {
    this.board = {
      id: given.id,
      address: given.address,
      name: 'serviceUuids' in given ? given.localName : given.name,
      adapter: given.adapter,
    };
  }

  /** A board from a scan must advertise MCUmgr, and not the product's service already. */
  select(ad: Advertisement | BoardRef): Promise<void> {
    return this.reporter.run('select', 1, async () => {
      if (!('serviceUuids' in ad)) return;
      if (ad.serviceUuids.includes(this.product.serviceUuid))
        throw new FatalStepError(
          'select',
          `the board already advertises the product's service ${this.product.serviceUuid}: it carries an identity (already provisioned)`,
          1,
        );
      if (!ad.serviceUuids.includes(this.profile.service))
        throw new FatalStepError(
          'select',
          `the board does not advertise the MCUmgr service ${this.profile.service}`,
          1,
        );
      if (!ad.connectable) throw new FatalStepError('select', 'the board is not connectable', 1);
    });
  }

  /**
   * Connects, opens MCUmgr and checks that the board's PSDI key is unset, then runs `reserve`:
   * a board that carries a PSDI already is skipped before one is reserved for it.
   */
  async open(reserve: () => Promise<void>): Promise<void> {
    const link = await this.openLink(1);
    try {
      await this.step('discover', 1, true, async () => {
        const held = await readPsdiSetting(link.client, this.profile);
        if (held !== undefined)
          throw new FatalStepError(
            'discover',
            `the board's setting ${this.profile.keys.psdi} holds PSDI "${held}" already; it belongs to another provisioning`,
            1,
          );
      });
      this.checkCancelled();
      await reserve();
      this.early = link;
    } catch (err) {
      await this.close(link);
      throw err;
    }
  }

  /**
   * Writes every key, then saves (the commit) and resets. After a save with no answer the board
   * is looked for: advertising the product's service, it saved and booted on the values, and
   * only the read-back can say more; still blank, every value is rewritten in a new session
   * (the same values, the same PSDI: harmless). The record keeps its PSDI throughout.
   */
  async writeAndCommit(record: SessionRecord): Promise<{ acknowledged: boolean }> {
    const writeTries = this.timing.write.retries + 1;
    const commitTries = this.timing.commit.retries + 1;
    let writeAttempt = 0;
    let commitAttempt = 0;
    for (;;) {
      writeAttempt++;
      try {
        const saved = await this.session(record, writeAttempt, commitAttempt + 1);
        if (saved) {
          await record.written(writeAttempt);
          return { acknowledged: true };
        }
        commitAttempt++;
        writeAttempt = 0;
        const seen = await this.lookAfterSave(commitAttempt);
        if (seen === 'saved') return { acknowledged: false };
        if (seen === 'not-seen' || commitAttempt >= commitTries)
          throw new StepFailure(
            'commit',
            commitAttempt,
            false,
            new Error(
              `no answer to the settings save and the board ${seen === 'not-seen' ? 'was not seen again' : 'still advertises no product'}: it may carry the PSDI; reconcile this record`,
            ),
          );
      } catch (err) {
        if (err instanceof StepFailure && err.sessionRetryable && writeAttempt < writeTries) {
          await delay(this.timing.retryDelayMs * writeAttempt);
          continue;
        }
        throw err;
      }
    }
  }

  outcomeUnknown(): string | undefined {
    return this.saveUnanswered
      ? 'the answer to the settings save was lost: outcome unknown — reconcile'
      : undefined;
  }

  /** After a lost save answer: does the board boot as the product, still blank, or not at all? */
  private lookAfterSave(attempt: number): Promise<'saved' | 'blank' | 'not-seen'> {
    return this.reporter.run('select', attempt, async () => {
      const ad = await findBoard(
        this.central,
        this.board.address,
        [this.product.serviceUuid, this.profile.service],
        this.timing.select.timeoutMs,
      );
      if (!ad) return 'not-seen';
      this.board = { ...this.board, id: ad.id };
      return ad.serviceUuids.includes(this.product.serviceUuid) ? 'saved' : 'blank';
    });
  }

  async verify(psdi: string, onVerified: (attempt: number) => Promise<void>): Promise<void> {
    try {
      await this.readBack(psdi, onVerified);
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      const found = await this.settingsAfterReset().catch(() => undefined);
      if (!found) throw err;
      throw new StepFailure('verify', err.attempts, false, new Error(`${err.message}; ${found}`));
    }
  }

  /**
   * The board saved every key and was reset, yet never came back as the product: its settings
   * say why. Keys with no value were lost at the reset (firmware that does not keep them), which
   * is not a refusal: a board that refuses a key answers its write with an error.
   */
  private async settingsAfterReset(): Promise<string | undefined> {
    const ad = await findBoard(
      this.central,
      this.board.address,
      [this.product.serviceUuid, this.profile.service],
      this.timing.select.timeoutMs,
    );
    // Advertising the product, it booted on the values: the read-back failed for another reason.
    if (!ad || ad.serviceUuids.includes(this.product.serviceUuid)) return undefined;
    const connection = await this.central.connect(ad.id, {
      timeoutMs: this.timing.connect.timeoutMs,
    });
    try {
      const client = await McumgrClient.open(connection, { timeoutMs: this.timing.read.timeoutMs });
      try {
        const lost: string[] = [];
        for (const key of Object.values(this.profile.keys))
          if (!(await readSettingIfSet(client, key))?.length) lost.push(key);
        return lost.length
          ? `the board lost ${lost.join(', ')} at its reset: it took and saved every setting, yet has no value for ${lost.length === 1 ? 'it' : 'them'} after booting again; likely cause: its firmware does not keep them in flash (a settings handler with no export, or settings never started)`
          : 'the board holds every setting after its reset but does not advertise the product: its firmware does not act on them at boot';
      } finally {
        await client.close();
      }
    } finally {
      await connection.disconnect().catch(() => undefined);
    }
  }

  private readBack(psdi: string, onVerified: (attempt: number) => Promise<void>): Promise<void> {
    return verifyUntilMatch({
      central: this.central,
      board: this.board,
      product: this.product,
      timing: this.timing,
      reporter: this.reporter,
      psdi,
      onVerified,
      refused: (attempt, refusal, cause) =>
        new FatalStepError(
          'verify',
          `the board refused the read-back of the PSDI with ${refusal.what}; likely cause: its firmware serves the PSDI characteristic only on a paired link`,
          attempt,
          { cause },
        ),
    });
  }

  whatReachedTheBoard(): string {
    if (!this.sent) return 'Nothing was written to the board';
    if (!this.acked.length) return 'The board acknowledged no setting';
    return `The board acknowledged ${this.acked.join(', ')}, not saved`;
  }

  checkCancelled(): void {
    if (this.signal?.aborted) throw new CancelledError();
  }

  /** One session: write every key, save, reset. True once the save was answered. */
  private async session(
    record: SessionRecord,
    attempt: number,
    commitAttempt: number,
  ): Promise<boolean> {
    const early = this.early;
    this.early = undefined;
    if (this.signal?.aborted) {
      if (early) void this.close(early);
      throw new CancelledError();
    }
    const link = early ?? (await this.openLink(attempt));
    try {
      const values = this.valuesToWrite(await record.psdiToWrite(undefined, attempt));
      await this.step('write', attempt, true, async () => {
        this.acked = [];
        for (const [name, data] of values) {
          this.sent = true;
          try {
            await writeSetting(link.client, this.profile.keys[name], data);
          } catch (err) {
            if (err instanceof McumgrError && err.failure === 'board')
              throw this.refusal('write', attempt, err, name);
            throw err;
          }
          this.acked.push(name);
          if (name === 'psdi') this.psdiAcked = true;
        }
      });
      this.checkCancelled();
      return await this.save(link, commitAttempt);
    } finally {
      await this.close(link);
    }
  }

  /** Saves the settings to flash, then resets so the firmware reads them at boot. */
  private async save(link: OpenLink, attempt: number): Promise<boolean> {
    try {
      await this.reporter.run(
        'commit',
        attempt,
        async () => {
          this.mayCarry = true;
          try {
            await saveSettings(link.client);
            this.saveUnanswered = false;
          } catch (err) {
            if (!(err instanceof McumgrError && err.failure === 'board')) {
              this.saveUnanswered = true;
              throw new SaveUnknownError(err);
            }
            this.mayCarry = false;
            throw this.refusal('commit', attempt, err, undefined);
          }
          // The values are in flash; a reset the board does not answer (it may be going down
          // already) is found out by the read-back.
          await reset(link.client).catch((err: unknown) => {
            if (err instanceof McumgrError && err.failure === 'board')
              throw this.refusal('commit', attempt, err, undefined);
          });
        },
        (err) => err instanceof SaveUnknownError,
      );
      return true;
    } catch (err) {
      if (err instanceof SaveUnknownError) return false;
      throw err;
    }
  }

  private async openLink(attempt: number): Promise<OpenLink> {
    const connection = await connectBoard({
      central: this.central,
      boardId: this.board.id,
      timing: this.timing,
      reporter: this.reporter,
      signal: this.signal,
    });
    try {
      const client = await this.step('discover', attempt, true, () =>
        McumgrClient.open(connection, { timeoutMs: this.timing.write.timeoutMs, retries: 0 }).catch(
          (err: unknown) => {
            // No MCUmgr service, or a subscribe the board refused: not a settings key's fault,
            // and a new link would meet the same.
            if (err instanceof McumgrError && err.failure === 'board')
              throw new FatalStepError('discover', errorMessage(err), attempt, { cause: err });
            throw err;
          },
        ),
      );
      return { connection, client };
    } catch (err) {
      await connection.disconnect().catch(() => undefined);
      throw err;
    }
  }

  private async close(link: OpenLink): Promise<void> {
    await link.client.close();
    await link.connection.disconnect().catch(() => undefined);
  }

  /** Runs a step once: the board's answer ends the run, a lost link may be tried again. */
  private async step<T>(
    step: ProvisioningStep,
    attempt: number,
    sessionRetryable: boolean,
    work: () => Promise<T>,
  ): Promise<T> {
    const byRule = (err: unknown) =>
      err instanceof FatalStepError || (err instanceof McumgrError && err.failure === 'board');
    try {
      return await this.reporter.run(
        step,
        attempt,
        work,
        (err) => sessionRetryable && !byRule(err) && attempt < this.timing.write.retries + 1,
      );
    } catch (err) {
      if (err instanceof FatalStepError || err instanceof StepFailure) throw err;
      if (err instanceof McumgrError && err.failure === 'board')
        throw this.refusal(step, attempt, err, undefined);
      throw new StepFailure(step, attempt, sessionRetryable, err);
    }
  }

  /** The board answered an error: the same board answers the same way every time. */
  private refusal(
    step: ProvisioningStep,
    attempt: number,
    err: McumgrError,
    value: ValueName | undefined,
  ): FatalStepError {
    this.refused = err;
    const what = value
      ? `the write of ${value} to setting ${this.profile.keys[value]}`
      : step === 'commit'
        ? 'the settings save'
        : `the ${step}`;
    const likely =
      value && isKeyTooLong(err)
        ? `the key is ${this.profile.keys[value].length} characters, so shorten profile ${this.profile.id}'s key or raise the limit in the firmware`
        : `its firmware has no settings handler for these keys, so check profile ${this.profile.id}'s keys against it`;
    return new FatalStepError(
      step,
      `the board refused ${what}: ${errorMessage(err)}; likely cause: ${likely}`,
      attempt,
      { cause: err },
    );
  }

  private valuesToWrite(psdi: string): [ValueName, Uint8Array][] {
    const uuid = (value: string) => encodeUuid(this.profile, value);
    return [
      ['serviceUuid', uuid(this.product.serviceUuid)],
      ['psdiServiceUuid', uuid(this.product.psdiServiceUuid)],
      ['psdiCharacteristicUuid', uuid(this.product.psdiCharacteristicUuid)],
      ['psdi', new TextEncoder().encode(psdi)],
    ];
  }
}
