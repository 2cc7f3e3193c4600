// A provisioning run's side of the board: select it, connect and check its GATT against the
// profile, write the product's values and the commit, look for it after a lost commit answer and
// read the PSDI back, each step bounded and retried by policy (docs/provisioning-protocol.md,
// "The tool's steps"). What it learns about the board (was a commit sent, was the PSDI
// acknowledged) tells the record ledger what the record may say.
import type { Advertisement, BleCentral, BleConnection } from '../ble/port';
import { attErrorOf } from '../ble/port';
import type { ProvisioningStep } from '../audit/records';
import type { BoardWriter, SessionRecord } from './board-writer';
import {
  STATUS,
  type AnyProvisioningProfile,
  type ProvisioningProfile,
} from '../ble/provisioning-profile';
import { errorMessage } from '../errors/message';
import { connectBoard } from './connect-board';
import { reachProfileSecurity, securityNeeded } from './profile-security';
import { refusalMessage } from './refusal-advice';
import { refusalOf, type Refusal } from './faults';
import { builtInProfiles, gattProfiles } from './profiles';
import { boardPsdi, valuesToWrite } from './gatt-values';
import { checkLayout, describeMismatch, layoutMismatch, matchingProfiles } from './preflight';
import { cancelledBy, CommitUnknownError, FatalStepError, StepFailure } from './step-failures';
import {
  delay,
  ProvisionMismatchError,
  StepReporter,
  StepTimeoutError,
  withStepTimeout,
  type BoardRef,
  type ProductTarget,
  type ProvisionTiming,
} from './steps';
import { findBoard, verifyUntilMatch } from './verify';
import { followableBoard } from './board-identity';

type SessionOutcome = 'acked' | 'already-committed' | { unknown: unknown };

/** The preflight's answer for a board whose GATT asked for pairing the profile does not state. */
const BOARD_ASKS = Symbol('the board asks for pairing');

type ValueName = keyof ProvisioningProfile['characteristics'];

export class GattSession implements BoardWriter {
  /** The board as last seen: its id changes if it is found again after a lost commit answer. */
  board: BoardRef;
  /** Set when a commit went out; cleared when the board is seen uncommitted afterwards. */
  mayCarry = false;
  /** The board acknowledged a write of the PSDI itself in this run, in any session. */
  psdiAcked = false;
  /** The board refused an operation by rule: no retry, and the cause in the message. */
  refused: Refusal | undefined;
  /**
   * The board's GATT refused the status read for want of security the profile does not state:
   * the run pairs at the authenticated level once, asking the person for the passkey
   * (docs/decisions/provisioning.md, "A board that asks for pairing the profile does not state").
   */
  private boardAsked: 3 | undefined;
  /** A write (of a value or the commit) went out to the board in this run. */
  sent = false;
  /**
   * The write of the PSDI or of the commit that went out and got no answer (the link or the
   * adapter went away, or the time ran out), until a later answer or a status byte says what
   * the board holds: its outcome is unknown, so the record keeps its PSDI for reconcile
   * (docs/decisions.md, "A noisy serial line").
   */
  private unanswered: string | undefined;
  /** The values the board acknowledged in the latest session (earlier ones are not trusted). */
  private acked: ValueName[] = [];
  /** The first connection, checked against the profile before anything was reserved. */
  private early: { connection: BleConnection; status: number | undefined } | undefined;

  constructor(
    private readonly central: BleCentral,
    private readonly profile: ProvisioningProfile,
    private readonly product: ProductTarget,
    private readonly timing: ProvisionTiming,
    private readonly reporter: StepReporter,
    private readonly signal: AbortSignal | undefined,
    private readonly knownProfiles: readonly AnyProvisioningProfile[] | undefined,
    given: Advertisement | BoardRef,
  ) {
    this.board = {
      id: given.id,
      address: given.address,
      name: 'serviceUuids' in given ? given.localName : given.name,
      adapter: given.adapter,
      identityAddress: given.identityAddress,
    };
  }

  /** A board from a scan must advertise the profile's service and take connections. */
  select(ad: Advertisement | BoardRef): Promise<void> {
    return this.reporter.run('select', 1, async () => {
      if ('serviceUuids' in ad) {
        if (!ad.serviceUuids.includes(this.profile.service))
          throw new FatalStepError(
            'select',
            `the board does not advertise the provisioning service ${this.profile.service} (already provisioned, or another profile)`,
            1,
          );
        if (!ad.connectable) throw new FatalStepError('select', 'the board is not connectable', 1);
      }
    });
  }

  /**
   * Connects and checks the board against the profile, then runs `reserve`: a board that cannot
   * take the profile's writes is skipped before a PSDI is reserved for it. The connection is
   * kept for the first write session.
   */
  async open(reserve: () => Promise<void>): Promise<void> {
    const { connection, status } = await this.checkedConnection();
    try {
      this.checkCancelled();
      this.board = await followableBoard(this.board, connection);
      await reserve();
      this.early = { connection, status };
    } catch (err) {
      await connection.disconnect().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Write and commit, with session retries, until the board holds the values. Answers whether
   * the board acknowledged them (`record.written` was called), or committed without an answer
   * that said so: then only the read-back proves it.
   */
  async writeAndCommit(record: SessionRecord): Promise<{ acknowledged: boolean }> {
    const writeTries = this.timing.write.retries + 1;
    const commitTries = this.timing.commit.retries + 1;
    let writeAttempt = 0;
    let commitAttempt = 0;
    for (;;) {
      let outcome: SessionOutcome;
      try {
        outcome = await this.session(record, ++writeAttempt, commitAttempt + 1);
      } catch (err) {
        if (err instanceof StepFailure && err.sessionRetryable && writeAttempt < writeTries) {
          await delay(this.timing.retryDelayMs * writeAttempt);
          continue;
        }
        throw err;
      }
      if (outcome !== 'acked' && outcome !== 'already-committed') {
        commitAttempt++;
        // The commit went out but its answer was lost: look at what the board advertises.
        const seen = await this.lookAfterCommit(commitAttempt);
        if (seen === 'uncommitted' && commitAttempt < commitTries) {
          writeAttempt = 0;
          continue;
        }
        if (seen !== 'committed')
          throw new StepFailure(
            'commit',
            commitAttempt,
            false,
            seen === 'uncommitted'
              ? new Error(`the commit did not take (${errorMessage(outcome.unknown)})`)
              : new Error(
                  `no answer to the commit (${errorMessage(outcome.unknown)}) and the board was not seen again`,
                ),
          );
        return { acknowledged: false };
      }
      this.unanswered = undefined;
      await record.written(writeAttempt);
      return { acknowledged: true };
    }
  }

  /** Reads the PSDI back from the product's service until it matches; `onVerified` records it. */
  verify(psdi: string, onVerified: (attempt: number) => Promise<void>): Promise<void> {
    return verifyUntilMatch({
      central: this.central,
      board: this.board,
      product: this.product,
      timing: this.timing,
      reporter: this.reporter,
      psdi,
      onVerified,
      refused: (attempt, refusal, err) => this.refusal('verify', attempt, refusal, undefined, err),
    });
  }

  /** What the record says of a write whose answer was lost, if the latest one's was. */
  outcomeUnknown(): string | undefined {
    return (
      this.unanswered && `the answer to ${this.unanswered} was lost: outcome unknown — reconcile`
    );
  }

  /** For a failure before the commit: what the board acknowledged, so the record says no more. */
  whatReachedTheBoard(): string {
    if (!this.sent) return 'Nothing was written to the board';
    if (!this.acked.length) return 'The board acknowledged no value';
    return `The board acknowledged ${this.acked.join(', ')}, uncommitted`;
  }

  checkCancelled(): void {
    if (this.signal?.aborted) throw cancelledBy(this.signal);
  }

  /** A connection to a board checked against the profile, tried as a session is. */
  private async checkedConnection(): Promise<{
    connection: BleConnection;
    status: number | undefined;
  }> {
    const tries = this.timing.write.retries + 1;
    for (let attempt = 1; ; attempt++) {
      const connection = await this.connect();
      let status: Awaited<ReturnType<GattSession['preflight']>>;
      try {
        status = await this.preflight(connection, attempt);
      } catch (err) {
        await connection.disconnect().catch(() => undefined);
        if (!(err instanceof StepFailure && err.sessionRetryable && attempt < tries)) throw err;
        this.checkCancelled();
        await delay(this.timing.retryDelayMs * attempt);
        continue;
      }
      if (status !== BOARD_ASKS) return { connection, status };
      // On a new connection: the station's unattended pairing was just refused on this one.
      await connection.disconnect().catch(() => undefined);
      this.boardAsked = 3;
      this.checkCancelled();
    }
  }

  /**
   * Discovers the board's GATT and checks it against the profile; a board that does not fit is
   * a ProvisionMismatchError naming the known profiles that do. Then reads the status byte.
   */
  private async preflight(
    connection: BleConnection,
    attempt: number,
  ): Promise<number | undefined | typeof BOARD_ASKS> {
    const pairs = securityNeeded(this.profile, this.boardAsked) !== undefined;
    const checked = await this.step('discover', attempt, true, async () => {
      const services = await withStepTimeout(
        connection.discover(),
        'discover',
        this.timing.discover.timeoutMs,
      );
      const mismatch = layoutMismatch(this.profile, services);
      if (mismatch || pairs) return { services, mismatch };
      try {
        return { services, status: await this.readStatus(connection) };
      } catch (err) {
        // Not a failed discover: the run pairs for the board, as its own pair step.
        if (this.asksForPairing(err)) return { services, asks: true };
        throw err;
      }
    });
    if (checked.mismatch !== undefined) {
      const matching = matchingProfiles(
        this.profile,
        checked.services,
        gattProfiles(this.knownProfiles ?? builtInProfiles()),
      );
      throw new ProvisionMismatchError(
        describeMismatch(this.profile, checked.mismatch, matching),
        this.board,
        matching.map((p) => ({ id: p.id, name: p.name })),
      );
    }
    if (checked.asks) return BOARD_ASKS;
    if (!pairs) return checked.status;
    // Before the first read, as a step of its own (the person sees "pair", not "discover"): a
    // board that guards its provisioning service at the product's level would otherwise be
    // paired for that read, by the station's unattended policy. The read proves the level.
    return this.step('pair', attempt, true, async () => {
      await reachProfileSecurity(connection, this.profile, this.boardAsked);
      return this.readStatus(connection);
    });
  }

  /**
   * Whether the status read was refused for want of security a profile below level 3 does not
   * state, the first time: the next connection pairs authenticated first.
   */
  private asksForPairing(err: unknown): boolean {
    return (
      this.boardAsked === undefined &&
      this.profile.security.level < 3 &&
      refusalOf(err)?.security === true
    );
  }

  /** One connection: discover, check the status, (read the PSDI), write, commit. */
  private async session(
    record: SessionRecord,
    attempt: number,
    commitAttempt: number,
  ): Promise<SessionOutcome> {
    const early = this.early;
    this.early = undefined;
    if (this.signal?.aborted) {
      void early?.connection.disconnect().catch(() => undefined);
      throw cancelledBy(this.signal);
    }
    const connection = early?.connection ?? (await this.connect());
    try {
      const status = early
        ? early.status
        : await this.step('discover', attempt, true, async () => {
            const services = await withStepTimeout(
              connection.discover(),
              'discover',
              this.timing.discover.timeoutMs,
            );
            checkLayout(this.profile, services, attempt);
            return this.readStatus(connection);
          });
      if (status === STATUS.committed) {
        // Ours only if a commit of this run (or of the record being resumed) went out.
        if (!this.mayCarry && !record.resumed)
          throw new FatalStepError(
            'discover',
            'the board reports it is committed already; it belongs to another provisioning',
            attempt,
          );
        return 'already-committed';
      }
      // The board says it is not committed: whatever commit or write went out before did not take.
      if (status !== undefined) {
        this.mayCarry = false;
        this.unanswered = undefined;
      }
      const fromBoard =
        this.profile.psdi.source === 'device'
          ? await this.readBoardPsdi(connection, attempt)
          : undefined;
      const values = valuesToWrite(
        this.profile,
        this.product,
        await record.psdiToWrite(fromBoard, attempt),
      );
      const room = connection.mtu - 3;
      const tooLong = values.find(([, data]) => data.length > room);
      if (tooLong)
        throw new FatalStepError(
          'write',
          `${tooLong[0]} is ${tooLong[1].length} bytes but the link's MTU ${connection.mtu} carries at most ${room} per write`,
          attempt,
        );
      await this.step('write', attempt, true, async () => {
        this.acked = [];
        for (const [name, data] of values) {
          this.sent = true;
          // Only the PSDI's own write can leave it on the board (the commit's is below).
          if (name === 'psdi') this.unanswered = 'the write of the PSDI';
          try {
            await withStepTimeout(
              connection.write(this.profile.service, this.profile.characteristics[name], data),
              'write',
              this.timing.write.timeoutMs,
            );
          } catch (err) {
            // An ATT error is the board's answer: it did not take the value.
            if (name === 'psdi' && attErrorOf(err)) this.unanswered = undefined;
            const refusal = refusalOf(err);
            if (refusal) throw this.refusal('write', attempt, refusal, name, err, data.length);
            throw err;
          }
          if (name === 'psdi') this.unanswered = undefined;
          this.acked.push(name);
          if (name === 'psdi') this.psdiAcked = true;
        }
      });
      this.checkCancelled();
      return await this.commit(connection, commitAttempt);
    } finally {
      await connection.disconnect().catch(() => undefined);
    }
  }

  /**
   * Writes the commit value, then reads the status byte: a board whose stack cannot answer a
   * write with an error (NimBLE-Arduino) acknowledges and reports `rejected` there instead.
   * No status because the board is gone: after an acknowledgement that is the reboot of a good
   * commit; after an error or no answer, only a look at the board can tell.
   */
  private async commit(connection: BleConnection, attempt: number): Promise<SessionOutcome> {
    this.mayCarry = true;
    const started = performance.now();
    try {
      return await this.reporter.run(
        'commit',
        attempt,
        async (): Promise<SessionOutcome> => {
          let answer: unknown;
          this.sent = true;
          this.unanswered = 'the commit';
          try {
            await withStepTimeout(
              connection.write(
                this.profile.service,
                this.profile.characteristics.control,
                Buffer.from(this.profile.commit.value, 'hex'),
              ),
              'commit',
              this.timing.commit.timeoutMs,
            );
          } catch (err) {
            if (err instanceof StepTimeoutError) throw new CommitUnknownError(err);
            answer = err;
          }
          const remaining = Math.max(
            1,
            this.timing.commit.timeoutMs - (performance.now() - started),
          );
          const status = await withStepTimeout(
            connection.read(this.profile.service, this.profile.characteristics.status),
            'commit',
            remaining,
          ).then(
            (data) => data[0],
            () => undefined,
          );
          if (status === STATUS.committed) {
            this.unanswered = undefined;
            return 'acked';
          }
          if (status === undefined) {
            // An adapter that cannot see a refusal (`native`) resolves every write: only a
            // read-back of the board can say the commit took (docs/decisions.md, "Native bindings").
            if (answer === undefined && connection.writesConfirmed) return 'acked';
            throw new CommitUnknownError(answer ?? 'the write was not confirmed by the board');
          }
          this.mayCarry = false;
          this.unanswered = undefined;
          const hex = status.toString(16).padStart(2, '0');
          throw new FatalStepError(
            'commit',
            `the board refused the commit (status 0x${hex})${answer === undefined ? '' : `: ${errorMessage(answer)}`}`,
            attempt,
            { cause: answer },
          );
        },
        (err) => err instanceof CommitUnknownError,
      );
    } catch (err) {
      if (err instanceof CommitUnknownError) return { unknown: err.cause };
      throw err;
    }
  }

  /** After a lost commit answer: is the board in product mode, still provisioning, or gone? */
  private async lookAfterCommit(
    attempt: number,
  ): Promise<'committed' | 'uncommitted' | 'not-seen'> {
    return this.reporter.run('select', attempt, async () => {
      const ad = await findBoard(
        this.central,
        this.board,
        [this.product.serviceUuid, this.profile.service],
        this.timing.select.timeoutMs,
      );
      if (!ad) return 'not-seen';
      this.board = { ...this.board, id: ad.id };
      return ad.serviceUuids.includes(this.product.serviceUuid) ? 'committed' : 'uncommitted';
    });
  }

  private connect(): Promise<BleConnection> {
    return connectBoard({
      central: this.central,
      boardId: this.board.id,
      timing: this.timing,
      reporter: this.reporter,
      signal: this.signal,
    });
  }

  /** Runs a step once; its failure becomes a StepFailure the session may retry. */
  private async step<T>(
    step: ProvisioningStep,
    attempt: number,
    sessionRetryable: boolean,
    work: () => Promise<T>,
  ): Promise<T> {
    const retryable = (err: unknown) =>
      sessionRetryable &&
      !(err instanceof FatalStepError) &&
      !refusalOf(err) &&
      attempt < this.timing.write.retries + 1;
    try {
      return await this.reporter.run(step, attempt, work, retryable);
    } catch (err) {
      if (err instanceof FatalStepError || err instanceof StepFailure) throw err;
      const refusal = refusalOf(err);
      if (refusal) throw this.refusal(step, attempt, refusal, undefined, err);
      throw new StepFailure(step, attempt, sessionRetryable, err);
    }
  }

  /** A refusal by rule ends the run at once: the same board answers the same way every time. */
  private refusal(
    step: ProvisioningStep,
    attempt: number,
    refusal: Refusal,
    value: ValueName | undefined,
    cause: unknown,
    written?: number,
  ): FatalStepError {
    this.refused = refusal;
    return new FatalStepError(
      step,
      refusalMessage(this.profile, { step, refusal, value, written }),
      attempt,
      { cause },
    );
  }

  /** The status byte, when the profile's status characteristic can be read. */
  private async readStatus(connection: BleConnection): Promise<number | undefined> {
    const data = await withStepTimeout(
      connection.read(this.profile.service, this.profile.characteristics.status),
      'discover',
      this.timing.read.timeoutMs,
    );
    return data[0];
  }

  /** Device source: the PSDI the board's firmware derived, read and checked. */
  private async readBoardPsdi(connection: BleConnection, attempt: number): Promise<string> {
    const data = await this.step('read-psdi', attempt, true, () =>
      withStepTimeout(
        connection.read(this.profile.service, this.profile.characteristics.psdi),
        'read-psdi',
        this.timing.read.timeoutMs,
      ),
    );
    return boardPsdi(this.profile, data, attempt);
  }
}
