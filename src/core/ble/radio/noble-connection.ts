// One link of a NobleCentral: noble's peripheral as a BleConnection. Operations run one at a
// time, as ATT does, each bounded in time, and every failure (an ATT error the HCI tap saw, a
// pairing that failed, a link that dropped) becomes a BleError naming the step and the device.
import type { Characteristic, Peripheral, Service } from '@abandonware/noble';
import {
  AttError,
  BleError,
  CHARACTERISTIC_PROPERTIES,
  NotAllowedError,
  expandUuid,
  formatUuid,
  normalizeUuid,
  reportedUuid,
  type BleConnection,
  type BleStep,
  type LinkFailure,
  type ServiceInfo,
} from '../port';
import { ATT_OP, attOpcodeName } from '../att/codes';
import { describeHciError, HCI_ERROR } from '../hci/codes';
import type {
  AttErrorReport,
  LinkCause,
  LinkReport,
  LinkState,
  SecurityFailure,
} from '../hci/tap-reports';
import {
  pairOptions,
  securityLevelOf,
  type LinkInfo,
  type LinkRequest,
  type LinkSecurity,
} from '../link-parameters';
import { pairingFailureMessage } from '../security-manager/refusals';
import { SMP_TIMEOUT_MS } from '../security-manager/initiator';
import { waitWords, type Schedule } from '../../async/timeout';
import {
  characteristicLabel as label,
  disconnectReason,
  REQUEST_CAUSE,
  SECURITY_ERRORS,
  VALUE_REQUESTS,
  ANSWERED_REFUSALS,
  REQUEST_WORDS,
  strongerPairing,
  withBleTimeout,
  type InFlight,
  type LinkControl,
  type StrongerPairing,
} from './link-control';
import { errorMessage } from '../../errors/message';

/** Connection events a data length update may take before its change counts as none. */
const DATA_LENGTH_EVENTS = 6;
const DATA_LENGTH_MIN_WAIT_MS = 100;

/** One link. Operations run one at a time, as ATT does, so an error belongs to the one in flight. */
export class NobleConnection implements BleConnection {
  readonly id: string;
  readonly writesConfirmed: boolean;
  private readonly peripheral: Peripheral;
  private readonly timeoutMs: number;
  private readonly schedule: Schedule;
  private readonly forget: () => void;
  private chain: Promise<unknown> = Promise.resolve();
  private inFlight: InFlight | null = null;
  private gatt: Service[] | null = null;
  private downReason: string | null = null;
  private readonly handlers = new Set<(reason: string) => void>();
  private readonly listeners = new Map<
    Characteristic,
    Set<(data: Buffer, isNotification: boolean) => void>
  >();

  private readonly control: LinkControl | undefined;
  private readonly linkHandlers = new Set<(link: LinkInfo) => void>();
  /** The link request in flight and the event that ends it. */
  private awaitingLink: { cause: LinkCause; done: (report: LinkReport) => void } | null = null;

  constructor(
    peripheral: Peripheral,
    options: {
      timeoutMs: number;
      schedule: Schedule;
      forget: () => void;
      writesConfirmed: boolean;
      control?: LinkControl;
    },
  ) {
    this.id = peripheral.id;
    this.writesConfirmed = options.writesConfirmed;
    this.peripheral = peripheral;
    this.timeoutMs = options.timeoutMs;
    this.schedule = options.schedule;
    this.forget = options.forget;
    this.control = options.control;
    peripheral.once('disconnect', (reason: unknown) => this.linkDown(disconnectReason(reason)));
  }

  get mtu(): number {
    return this.peripheral.mtu ?? 23;
  }

  discover(): Promise<ServiceInfo[]> {
    return this.run('discover', 'discovering services', async () => {
      const services = await this.discoverGatt();
      return services.map((s) => ({
        uuid: reportedUuid(s.uuid),
        characteristics: (s.characteristics ?? []).map((c) => ({
          uuid: reportedUuid(c.uuid),
          properties: CHARACTERISTIC_PROPERTIES.filter((p) => c.properties.includes(p)),
        })),
      }));
    });
  }

  read(serviceUuid: string, characteristicUuid: string): Promise<Uint8Array> {
    return this.run('read', `reading ${label(characteristicUuid)}`, async () => {
      const c = await this.characteristic('read', serviceUuid, characteristicUuid);
      if (!c.properties.includes('read'))
        throw new NotAllowedError(
          'read',
          `${label(characteristicUuid)} does not allow read (it allows ${c.properties.join(', ')})`,
          this.id,
        );
      return Uint8Array.from(await c.readAsync());
    });
  }

  write(
    serviceUuid: string,
    characteristicUuid: string,
    data: Uint8Array,
    options: { withoutResponse?: boolean } = {},
  ): Promise<void> {
    const withoutResponse = options.withoutResponse === true;
    return this.run('write', `writing ${label(characteristicUuid)}`, async () => {
      if (data.length > 512)
        throw new BleError(
          'write',
          `${data.length} bytes: an attribute holds at most 512`,
          this.id,
        );
      if (withoutResponse && data.length > this.mtu - 3)
        throw new BleError(
          'write',
          `${data.length} bytes do not fit a write without response (MTU ${this.mtu} carries ${this.mtu - 3})`,
          this.id,
        );
      const c = await this.characteristic('write', serviceUuid, characteristicUuid);
      const needed = withoutResponse ? 'writeWithoutResponse' : 'write';
      if (!c.properties.includes(needed))
        throw new NotAllowedError(
          'write',
          `${label(characteristicUuid)} does not allow ${needed} (it allows ${c.properties.join(', ')})`,
          this.id,
        );
      await c.writeAsync(Buffer.from(data), withoutResponse);
    });
  }

  subscribe(
    serviceUuid: string,
    characteristicUuid: string,
    onValue: (data: Uint8Array) => void,
  ): Promise<() => Promise<void>> {
    return this.run('subscribe', `subscribing to ${label(characteristicUuid)}`, async (given) => {
      const c = await this.characteristic('subscribe', serviceUuid, characteristicUuid);
      if (!c.properties.includes('notify') && !c.properties.includes('indicate'))
        throw new NotAllowedError(
          'subscribe',
          `${label(characteristicUuid)} neither notifies nor indicates`,
          this.id,
        );
      const listener = (data: Buffer, isNotification: boolean) => {
        if (isNotification) onValue(Uint8Array.from(data));
      };
      const set = this.listeners.get(c) ?? new Set();
      const first = set.size === 0;
      // Listening before the CCCD is written: a value may follow its Write Response at once.
      set.add(listener);
      this.listeners.set(c, set);
      c.on('data', listener);
      // A try given up (refused, then run again after a stronger pairing) takes its listener
      // away before the next try looks for the first subscriber.
      given.addEventListener('abort', () => this.removeListener(c, listener), { once: true });
      if (first) {
        try {
          await c.subscribeAsync();
        } catch (err) {
          this.removeListener(c, listener);
          throw err;
        }
      }
      let active = true;
      return async () => {
        if (!active) return;
        active = false;
        this.removeListener(c, listener);
        if (this.downReason === null && !this.listeners.has(c))
          await this.run('subscribe', `unsubscribing from ${label(characteristicUuid)}`, () =>
            c.unsubscribeAsync(),
          );
      };
    });
  }

  async disconnect(): Promise<void> {
    if (this.downReason !== null) return;
    // A pairing whose link is encrypted finishes its key distribution first, so the board
    // keeps its bond too; it ends by itself within the SMP's 30 s, and its failure is its own.
    await this.control?.keyDistribution?.(this.id)?.catch(() => undefined);
    if (this.downReason !== null) return;
    try {
      await withBleTimeout(this.schedule, this.peripheral.disconnectAsync(), this.timeoutMs);
    } catch (err) {
      // The controller's word on it was lost (a noisy line): the link is over for this side,
      // and the central ends what is left of it before its next connect to the board.
      this.linkDown(`the disconnect was not answered: ${errorMessage(err)}`);
      throw new BleError(
        'disconnect',
        `disconnecting from ${this.id}: ${errorMessage(err)}`,
        this.id,
        {
          cause: err,
        },
      );
    }
  }

  onDisconnect(handler: (reason: string) => void): () => void {
    const reason = this.downReason;
    if (reason !== null) {
      queueMicrotask(() => handler(reason));
      return () => undefined;
    }
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  linkInfo(): LinkInfo | undefined {
    const state = this.downReason === null ? this.control?.linkState(this.id) : undefined;
    return state && this.info(state);
  }

  onLinkChange(handler: (link: LinkInfo) => void): () => void {
    this.linkHandlers.add(handler);
    return () => this.linkHandlers.delete(handler);
  }

  /**
   * One link procedure at a time, in turn with the GATT operations: it ends with the
   * controller's event for it (LE Connection Update Complete, LE PHY Update Complete, Encryption
   * Change, the Read RSSI result), or fails with the HCI status or SMP reason the controller or
   * the board gave.
   */
  requestLink(request: LinkRequest): Promise<LinkInfo> {
    return this.run('link', REQUEST_WORDS[request.kind], async () => {
      const control = this.control;
      if (!control)
        throw new Error('link controls need an HCI adapter (the simulated bench or hciN)');
      const state = control.linkState(this.id);
      if (request.kind === 'pair' && state?.encrypted) return this.info(state);
      let cancelWait = () => {};
      const report = await new Promise<LinkReport | undefined>((resolve) => {
        this.awaitingLink = { cause: REQUEST_CAUSE[request.kind], done: resolve };
        const sent =
          request.kind === 'pair'
            ? control.pair(this.id, {
                ...pairOptions(request),
                requireMitm: request.requireMitm ?? request.mitm,
              })
            : control.sendLinkRequest(this.id, request);
        if (!sent) throw new Error('the board has no link');
        // LE Data Length Change comes only when the length changed (7.7.65.7): a link already
        // at what the controller and the board take hears nothing after the LL_LENGTH_REQ/RSP.
        if (request.kind === 'dataLength')
          cancelWait = this.schedule(
            () => resolve(undefined),
            Math.max(DATA_LENGTH_EVENTS * (state?.intervalMs ?? 0), DATA_LENGTH_MIN_WAIT_MS),
          );
      }).finally(() => {
        this.awaitingLink = null;
        cancelWait();
      });
      if (!report) {
        const now = control.linkState(this.id);
        if (!now) throw new Error('the board has no link');
        return this.info(now);
      }
      if (report.status !== 0)
        throw new Error(`the controller answered ${describeHciError(report.status)}`);
      if (request.kind !== 'pair') return this.info(report.link);
      // A pairing is a bond on both sides before the link does anything else: it is done
      // once key distribution completed (docs/decisions/ble-and-hci.md).
      await control.keyDistribution?.(this.id);
      return this.info(control.linkState(this.id) ?? report.link);
    });
  }

  /** Pairs again asking for MITM and Secure Connections; resolves once the link has the new key. */
  private async pairStronger(needs: StrongerPairing): Promise<void> {
    const control = this.control;
    if (!control) throw new Error('pairing needs an HCI adapter');
    const report = await new Promise<LinkReport>((resolve) => {
      this.awaitingLink = { cause: 'encryption', done: resolve };
      if (!control.pair(this.id, needs)) throw new Error('the board has no link');
    }).finally(() => (this.awaitingLink = null));
    if (report.status !== 0)
      throw new Error(`pairing again: the controller answered ${describeHciError(report.status)}`);
    await control.keyDistribution?.(this.id);
  }

  /**
   * The station's pairing on this link waits on the person (a passkey, a comparison): whatever
   * is in flight — a `pair` request, or the GATT request noble pairs for — waits for them the
   * SMP's 30 s and then its own bound, not its own bound alone (docs/decisions.md, "Pairing as
   * a phone does").
   */
  personAsked(): void {
    this.inFlight?.extend(SMP_TIMEOUT_MS + this.timeoutMs);
  }

  /**
   * The station's pairing on this link ran out of the SMP's 30 s — a person who did not answer,
   * a board that did not complete key distribution — with no Pairing Failed on the air for the
   * tap to report: what is in flight ends in the pairing's words, and, as after a refused
   * pairing, the request noble held back never goes, so the link is closed.
   */
  pairingTimedOut(error: Error): void {
    const inFlight = this.inFlight;
    if (!inFlight) return;
    if (inFlight.step === 'link') return inFlight.fail(error.message, error);
    inFlight.fail(
      `the board needs an encrypted link and ${error.message}; the link is closed`,
      error,
    );
    void this.peripheral.disconnectAsync().catch(() => undefined);
  }

  /** From the tap: the controller reported a change of this link, or refused a request for one. */
  linkChanged(report: LinkReport): void {
    if (this.awaitingLink?.cause === report.cause) this.awaitingLink.done(report);
    if (report.status !== 0) return;
    const info = this.info(report.link);
    for (const handler of [...this.linkHandlers]) handler(info);
  }

  private info(state: LinkState): LinkInfo {
    const { encrypted, ...rest } = state;
    // A link encrypted by some other way than the station's SMP says only that it is.
    const reported = this.control?.linkSecurity?.(this.id);
    const security: LinkSecurity =
      reported?.encrypted === encrypted
        ? reported
        : { encrypted, authenticated: false, bonded: false };
    return { ...rest, mtu: this.mtu, securityLevel: securityLevelOf(security), security };
  }

  /**
   * From the tap: the board refused the request in flight. Refusals for want of security on a
   * link not yet encrypted are noble's to handle: it pairs and sends the request again.
   */
  attFailed(report: AttErrorReport): void {
    // Discovery ends with an error by design (Attribute Not Found past the last handle); a
    // subscribe's Read By Type for the CCCD counts when it is refused for security.
    const cccdRefused = report.request === ATT_OP.readByTypeReq && SECURITY_ERRORS.has(report.code);
    if (!VALUE_REQUESTS.has(report.request) && !cccdRefused) return;
    if (!report.encrypted && SECURITY_ERRORS.has(report.code)) return;
    const inFlight = this.inFlight;
    const needs = strongerPairing(report.code, this.control?.linkSecurity?.(this.id));
    if (inFlight && inFlight.step !== 'link' && needs && inFlight.needs === undefined) {
      // The operation pairs and runs once more: when noble answers the request with the
      // error, or now, where noble leaves it unanswered.
      inFlight.needs = needs;
      if (!ANSWERED_REFUSALS.has(report.request)) inFlight.refused();
      return;
    }
    const error = new AttError(report.code, attOpcodeName(report.request), report.attHandle);
    this.inFlight?.fail(`the board answered ${error.message}`, error);
  }

  /** From the tap: pairing or encryption failed, so the request noble held back never goes. */
  securityFailed(failure: SecurityFailure): void {
    const what =
      failure.stage === 'pairing'
        ? pairingFailureMessage(
            failure.code,
            failure.byBoard,
            this.control?.pairingContext?.(this.id),
          )
        : `encryption refused: ${describeHciError(failure.code)}${
            failure.code === HCI_ERROR.pinOrKeyMissing
              ? ' — the board lost its bond with this station: forget the bond and pair again'
              : ''
          }`;
    if (this.inFlight?.step === 'link') {
      // Pairing asked for by itself holds no GATT request back: the link stays up.
      this.inFlight.fail(what);
      return;
    }
    this.inFlight?.fail(`the board needs an encrypted link and ${what}; the link is closed`);
    // noble's gatt.js keeps the refused request as its current command for good, so nothing
    // more would move on this link: end it, so the next connection starts clean.
    void this.peripheral.disconnectAsync().catch(() => undefined);
  }

  private linkDown(reason: string): void {
    if (this.downReason !== null) return;
    this.downReason = reason;
    this.forget();
    this.inFlight?.fail(`link lost: ${reason}`, undefined, 'lost');
    for (const [c, set] of this.listeners) for (const l of set) c.removeListener('data', l);
    this.listeners.clear();
    for (const handler of [...this.handlers]) handler(reason);
    this.handlers.clear();
  }

  private removeListener(
    c: Characteristic,
    listener: (data: Buffer, isNotification: boolean) => void,
  ): void {
    c.removeListener('data', listener);
    const set = this.listeners.get(c);
    set?.delete(listener);
    if (set && !set.size) this.listeners.delete(c);
  }

  /**
   * `action` may run twice: once more after a stronger pairing. `given` aborts when its try is
   * given up, before the next begins: noble may still settle that try later (on the retry's
   * answer), and what it settles with is ignored.
   */
  private run<T>(
    step: BleStep,
    what: string,
    action: (given: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const task = this.chain.then(() => this.attempt(step, what, action));
    this.chain = task.catch(() => undefined);
    return task;
  }

  private attempt<T>(
    step: BleStep,
    what: string,
    action: (given: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (this.downReason !== null)
      return Promise.reject(
        new BleError(step, `${what}: not connected (${this.downReason})`, this.id, {
          link: 'lost',
        }),
      );
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = () => {
        settled = true;
        cancel();
        this.inFlight = null;
      };
      let retried = false;
      /** The try under way; a failed operation gives it up, so it leaves nothing behind. */
      let given: AbortController | undefined;
      const fail = (text: string, cause?: unknown, link?: LinkFailure) => {
        if (settled) return;
        finish();
        given?.abort();
        reject(
          new BleError(step, `${what}: ${text}`, this.id, {
            ...(cause !== undefined && { cause }),
            link,
            detail: text,
          }),
        );
      };
      const startTimer = () =>
        this.schedule(
          () => fail(`no answer within ${waitWords(this.timeoutMs)}`, undefined, 'timeout'),
          this.timeoutMs,
        );
      let cancel = startTimer();
      const inFlight: InFlight = {
        step,
        fail,
        refused: () => {
          if (!settled) pairedAgain();
        },
        extend: (ms) => {
          if (settled) return;
          cancel();
          cancel = this.schedule(
            () => fail(`no answer within ${waitWords(ms)}`, undefined, 'timeout'),
            ms,
          );
        },
      };
      this.inFlight = inFlight;
      /** Whether the board's refusal sends the operation through a stronger pairing first. */
      const pairedAgain = (): boolean => {
        const needs = inFlight.needs;
        if (!needs || retried) return false;
        // Pairing waits on a person (a passkey) and the SMP timeout, not this one.
        retried = true;
        cancel();
        this.pairStronger(needs).then(
          () => {
            if (settled) return;
            cancel = startTimer();
            run();
          },
          (error: unknown) => fail(errorMessage(error), error),
        );
        return true;
      };
      const run = (): void => {
        given?.abort();
        const mine = (given = new AbortController());
        const current = () => !mine.signal.aborted && !settled;
        action(mine.signal).then(
          (value) => {
            // noble answers a refused read with no bytes: the refusal decides.
            if (!current() || pairedAgain()) return;
            finish();
            resolve(value);
          },
          (err: unknown) => {
            if (!current() || pairedAgain()) return;
            if (err instanceof BleError) {
              finish();
              reject(err);
            } else fail(errorMessage(err), err);
          },
        );
      };
      run();
    });
  }

  private async discoverGatt(): Promise<Service[]> {
    if (this.gatt) return this.gatt;
    // Service by service: noble's discoverAll… never calls back for a board with no services.
    const services = await this.peripheral.discoverServicesAsync([]);
    for (const s of services) await s.discoverCharacteristicsAsync([]);
    this.gatt = services;
    return services;
  }

  private async characteristic(
    step: BleStep,
    serviceUuid: string,
    characteristicUuid: string,
  ): Promise<Characteristic> {
    let service: string;
    let characteristic: string;
    try {
      service = expandUuid(normalizeUuid(serviceUuid));
      characteristic = expandUuid(normalizeUuid(characteristicUuid));
    } catch (err) {
      throw new BleError(step, errorMessage(err), this.id);
    }
    const services = await this.discoverGatt();
    const s = services.find((x) => expandUuid(reportedUuid(x.uuid)) === service);
    if (!s) throw new BleError(step, `the board has no service ${formatUuid(service)}`, this.id);
    const c = (s.characteristics ?? []).find(
      (x) => expandUuid(reportedUuid(x.uuid)) === characteristic,
    );
    if (!c)
      throw new BleError(
        step,
        `service ${formatUuid(service)} has no characteristic ${formatUuid(characteristic)}`,
        this.id,
      );
    return c;
  }
}
