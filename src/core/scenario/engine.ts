// Runs a scenario set against one board as the platform's client does
// (docs/platform-api.md#things-scenario-sets): find the board's advertisement and connect; queue
// the IMMEDIATE scenarios, and a BLE_NOTIFICATION scenario for each notification from its
// characteristic; run one scenario at a time, its actions in order; with autoClose, disconnect when
// a scenario finishes and reconnect after `suppressionInterval`. It only speaks `BleCentral`, so
// the simulated bench and real hardware take the same path, and only the given clock, so a test can
// drive it to the millisecond.
import {
  BleError,
  matchesUuid,
  type BleCentral,
  type BleConnection,
  type ServiceInfo,
} from '../ble/port';
import type { Clock } from '../async/clock';
import type { RunnableSet, StopReason, TimelineEvent } from './schema';
import type { ActionResult, ResultCode, ScenarioResult } from '../platform/things/scenario-result';
import type { ActionContext, ActionOutcome } from '../platform/things/actions/descriptor';
import { actionDescriptor } from '../platform/things/actions/registry';
import { errorMessage } from '../errors/message';
import { resolveName, withCharacteristicName, type NameSources } from '../ble/names/resolver';
import { pairAsPhone } from './pair-as-phone';

export interface DryRunOptions {
  central: BleCentral;
  /** The board, as `BleCentral.connect` takes it. */
  deviceId: string;
  set: RunnableSet;
  clock: Clock;
  onEvent: (event: TimelineEvent) => void;
  /** Stop once this many connections have ended. */
  cycles?: number;
  /** Stop this long after the start. */
  durationMs?: number;
  /** Looking for the board's advertisement before a connection attempt counts as failed. */
  findTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Wait after a lost link or a failed attempt before the next; the client's own is not shown. */
  retryDelayMs?: number;
  /**
   * The product's and the board's names for its characteristics, so an error reads "reading
   * Temperature (a3c80002-…)"; the SIG's names are used without them.
   */
  names?: Pick<NameSources, 'user' | 'board'>;
  /**
   * Pair each new link before anything else, as a phone does: LE Secure Connections and MITM
   * with the station's IO capability and bonding policy, a bonded board encrypted with its bond
   * (docs/decisions/scenarios.md, "Pairing as a phone does in a dry run").
   */
  pairAsPhone?: boolean;
}

export interface DryRunOutcome {
  reason: StopReason;
  results: ScenarioResult[];
}

const DEFAULTS = { findTimeoutMs: 10_000, connectTimeoutMs: 10_000, retryDelayMs: 1_000 };

type Ended = 'autoClose' | 'link' | 'stop';

interface Queued {
  scenario: number;
  payload?: Uint8Array;
}

export function startDryRun(options: DryRunOptions): DryRun {
  return new DryRun(options);
}

export class DryRun {
  readonly done: Promise<DryRunOutcome>;
  private readonly o: DryRunOptions & typeof DEFAULTS;
  private readonly results: ScenarioResult[] = [];
  private stopReason: StopReason | undefined;
  private wakeStop!: () => void;
  private readonly stopSignal = new Promise<void>((resolve) => (this.wakeStop = resolve));
  private connection: BleConnection | undefined;
  private runs = 0;

  constructor(options: DryRunOptions) {
    this.o = { ...DEFAULTS, ...options };
    const timer =
      options.durationMs !== undefined
        ? this.o.clock.setTimeout(() => this.requestStop('duration'), options.durationMs)
        : undefined;
    this.done = this.loop()
      .catch((err: unknown) => {
        this.emit({ kind: 'error', at: this.now(), message: errorMessage(err) });
        this.stopReason ??= 'error';
      })
      .then(() => {
        if (timer) this.o.clock.clearTimeout(timer);
        const reason = this.stopReason ?? 'operator';
        this.emit({
          kind: 'stopped',
          at: this.now(),
          reason,
          ...(reason === 'duration' && { durationMs: this.o.durationMs }),
        });
        return { reason, results: [...this.results] };
      });
  }

  /** Ends the run: a SLEEP or wait ends at once, a GATT operation with the link. */
  stop(): Promise<DryRunOutcome> {
    this.requestStop('operator');
    return this.done;
  }

  private get stopping(): boolean {
    return this.stopReason !== undefined;
  }

  private requestStop(reason: StopReason): void {
    if (this.stopping) return;
    this.stopReason = reason;
    this.wakeStop();
    this.connection?.disconnect().catch(() => undefined);
  }

  private async loop(): Promise<void> {
    let connections = 0;
    while (!this.stopping) {
      this.emit({ kind: 'connecting', at: this.now(), cycle: connections + 1 });
      let connection: BleConnection;
      try {
        connection = await this.connect();
      } catch (err) {
        if (this.stopping) return;
        this.emit({ kind: 'connect-failed', at: this.now(), error: errorMessage(err) });
        await this.wait(this.o.retryDelayMs, 'reconnect');
        continue;
      }
      connections += 1;
      const ended = await this.session(connection);
      if (ended === 'stop' || this.stopping) return;
      if (this.o.cycles !== undefined && connections >= this.o.cycles) {
        this.requestStop('cycles');
        return;
      }
      if (ended === 'autoClose')
        await this.wait(this.o.set.suppressionInterval, 'suppressionInterval');
      else await this.wait(this.o.retryDelayMs, 'reconnect');
    }
  }

  /** Waits for the board to advertise, then connects: a board that is rebooting is not there yet. */
  private async connect(): Promise<BleConnection> {
    const { central, deviceId, clock } = this.o;
    let seen!: () => void;
    const advertised = new Promise<void>((resolve) => (seen = resolve));
    const scan = await central.startScan({}, (ad) => ad.id === deviceId && seen());
    let timer;
    try {
      const found = await Promise.race([
        advertised.then(() => true),
        new Promise<false>((resolve) => {
          timer = clock.setTimeout(() => resolve(false), this.o.findTimeoutMs);
        }),
        this.stopSignal.then(() => false),
      ]);
      if (this.stopping) throw new Error('stopped');
      if (!found)
        throw new Error(`${deviceId} did not advertise within ${this.o.findTimeoutMs} ms`);
    } finally {
      if (timer) clock.clearTimeout(timer);
      await scan.stop();
    }
    const connection = await central.connect(deviceId, { timeoutMs: this.o.connectTimeoutMs });
    if (this.stopping) {
      await connection.disconnect().catch(() => undefined);
      throw new Error('stopped');
    }
    return connection;
  }

  /** One connection, from connected to disconnected. */
  private async session(connection: BleConnection): Promise<Ended> {
    this.connection = connection;
    const { set } = this.o;
    let lost: string | undefined;
    let wake: (() => void) | undefined;
    const queue: Queued[] = [];
    const linkDown = new Promise<void>((resolve) =>
      connection.onDisconnect((reason) => {
        lost = reason;
        resolve();
        wake?.();
      }),
    );
    this.emit({
      kind: 'connected',
      at: this.now(),
      mtu: connection.mtu,
      adapter: connection.adapter,
      writesConfirmed: connection.writesConfirmed,
    });

    try {
      if (this.o.pairAsPhone) {
        const startedAt = this.now();
        const refused = await pairAsPhone(connection, startedAt, this.o.clock, (e) => this.emit(e));
        if (this.stopping) return 'stop';
        if (refused !== undefined) {
          this.emit({ kind: 'pairing-failed', at: this.now(), startedAt, error: refused });
          await connection.disconnect().catch(() => undefined);
          this.emit({ kind: 'disconnected', at: this.now(), by: 'link', reason: 'pairing failed' });
          return 'link';
        }
      }
      let services: ServiceInfo[] = [];
      try {
        services = await connection.discover();
      } catch (err) {
        if (!this.stopping && lost === undefined)
          this.emit({ kind: 'error', at: this.now(), message: `discovery: ${errorMessage(err)}` });
      }
      await this.subscribeTriggers(connection, (scenario, payload) => {
        queue.push({ scenario, payload });
        wake?.();
      });
      set.scenarios.forEach(
        (s, i) => s.trigger.type === 'IMMEDIATE' && queue.push({ scenario: i }),
      );

      for (;;) {
        if (this.stopping) return 'stop';
        if (lost !== undefined) break;
        const next = queue.shift();
        if (!next) {
          await Promise.race([
            new Promise<void>((resolve) => (wake = resolve)),
            linkDown,
            this.stopSignal,
          ]);
          wake = undefined;
          continue;
        }
        const finished = await this.runScenario(connection, services, next, () => lost);
        if (!finished) return 'stop';
        if (set.autoClose) {
          this.drop(queue);
          // A disconnect that failed (the board stopped answering) has no link-down to wait for.
          if (
            await connection.disconnect().then(
              () => true,
              () => false,
            )
          )
            await Promise.race([linkDown, this.stopSignal]);
          if (this.stopping) return 'stop';
          this.emit({ kind: 'disconnected', at: this.now(), by: 'autoClose', reason: lost ?? '' });
          return 'autoClose';
        }
      }
      this.drop(queue);
      this.emit({ kind: 'disconnected', at: this.now(), by: 'link', reason: lost ?? '' });
      return 'link';
    } finally {
      if (this.stopping) {
        await connection.disconnect().catch(() => undefined);
        this.emit({ kind: 'disconnected', at: this.now(), by: 'stop', reason: 'stopped' });
      }
      this.connection = undefined;
    }
  }

  private async subscribeTriggers(
    connection: BleConnection,
    onTrigger: (scenario: number, payload: Uint8Array) => void,
  ): Promise<void> {
    const { scenarios } = this.o.set;
    const done: { service: string; characteristic: string }[] = [];
    for (const [i, { trigger }] of scenarios.entries()) {
      if (
        trigger.type !== 'BLE_NOTIFICATION' ||
        !trigger.serviceUuid ||
        !trigger.characteristicUuid
      )
        continue;
      const service = trigger.serviceUuid;
      const characteristic = trigger.characteristicUuid;
      if (
        done.some(
          (d) => matchesUuid(d.service, service) && matchesUuid(d.characteristic, characteristic),
        )
      )
        continue;
      done.push({ service, characteristic });
      try {
        await connection.subscribe(service, characteristic, (data) => {
          if (this.stopping) return;
          this.emit({
            kind: 'notification',
            at: this.now(),
            serviceUuid: service,
            characteristicUuid: characteristic,
            data: base64(data),
          });
          scenarios.forEach((s, j) => {
            const t = s.trigger;
            if (
              t.type === 'BLE_NOTIFICATION' &&
              matchesUuid(t.serviceUuid, service) &&
              matchesUuid(t.characteristicUuid, characteristic)
            )
              onTrigger(j, data);
          });
        });
      } catch (err) {
        if (this.stopping) return;
        this.emit({
          kind: 'error',
          at: this.now(),
          message: `scenarios[${i}].trigger: no notifications: ${errorMessage(err)}`,
        });
      }
    }
  }

  /** Runs one scenario; false when the stop interrupted it (it then has no result). */
  private async runScenario(
    connection: BleConnection,
    services: ServiceInfo[],
    { scenario: index, payload }: Queued,
    linkLost: () => string | undefined,
  ): Promise<boolean> {
    const scenario = this.o.set.scenarios[index];
    if (!scenario) return true;
    const run = ++this.runs;
    const startTime = this.now();
    this.emit({
      kind: 'scenario-start',
      at: startTime,
      run,
      scenario: index,
      scenarioId: scenario.id,
      trigger: scenario.trigger.type,
    });
    const actionResults: ActionResult[] = [];
    const finish = (resultCode: ResultCode, errorReason?: string) => {
      const result: ScenarioResult = {
        scenarioId: scenario.id,
        revision: this.o.set.revision,
        startTime,
        endTime: this.now(),
        resultCode,
        actionResults,
        ...(payload && { bleNotificationPayload: base64(payload) }),
        ...(errorReason !== undefined && { errorReason }),
      };
      this.results.push(result);
      this.emit({ kind: 'scenario-end', at: result.endTime, run, scenario: index, result });
      return true;
    };

    for (const [j, action] of scenario.actions.entries()) {
      const startedAt = this.now();
      const step = { run, scenario: index, action: j, type: action.type };
      this.emit({ kind: 'action-start', at: startedAt, ...step });
      const detail = {
        ...step,
        startedAt,
        serviceUuid: action.serviceUuid,
        characteristicUuid: action.characteristicUuid,
        sleepMillis: action.sleepMillis,
      };
      const writes = actionDescriptor(action.type)?.writes === true;
      try {
        const outcome = await this.act(connection, services, action);
        if (this.stopping) {
          this.emit({ kind: 'action', ...detail, endedAt: this.now(), error: 'stopped' });
          this.emit({ kind: 'scenario-cancelled', at: this.now(), run, scenario: index });
          return false;
        }
        actionResults.push(outcome.result);
        this.emit({
          kind: 'action',
          ...detail,
          endedAt: this.now(),
          data: outcome.data,
          writeConfirmed: writes ? connection.writesConfirmed : undefined,
        });
      } catch (err) {
        const message = this.named(errorMessage(err), action.characteristicUuid);
        // A refused write still shows what it tried to write: the engineer compares it with the
        // board's spec.
        const tried = writes ? action.data : undefined;
        this.emit({ kind: 'action', ...detail, endedAt: this.now(), data: tried, error: message });
        if (this.stopping) {
          this.emit({ kind: 'scenario-cancelled', at: this.now(), run, scenario: index });
          return false;
        }
        // Numbered from 1, as the editor numbers actions (docs/decisions.md, "Diagnoses that
        // fit the evidence").
        return finish(classify(err, linkLost()), `action ${j + 1} ${action.type}: ${message}`);
      }
    }
    return finish('SUCCESS');
  }

  /** The error's words with the action's characteristic called by its name, if it has one. */
  private named(message: string, characteristicUuid: string | undefined): string {
    if (characteristicUuid === undefined) return message;
    const name = resolveName(characteristicUuid, { ...this.o.names, kinds: ['characteristic'] });
    return withCharacteristicName(message, characteristicUuid, name?.name);
  }

  /** Runs one action as its type says (platform/things/actions), over this connection. */
  private async act(
    connection: BleConnection,
    services: ServiceInfo[],
    action: RunnableSet['scenarios'][number]['actions'][number],
  ): Promise<ActionOutcome> {
    const descriptor = actionDescriptor(action.type);
    if (!descriptor) throw new Error(`no action type ${action.type} is registered`);
    const context: ActionContext = {
      sleep: (ms) => this.wait(ms),
      read: async (service, characteristic) =>
        base64(await connection.read(service, characteristic)),
      write: (service, characteristic, data) => {
        // With response when the characteristic allows it, as a client must to learn of errors.
        const properties = services
          .find((s) => matchesUuid(s.uuid, service))
          ?.characteristics.find((c) => matchesUuid(c.uuid, characteristic))?.properties;
        const withoutResponse =
          properties !== undefined &&
          !properties.includes('write') &&
          properties.includes('writeWithoutResponse');
        return connection.write(service, characteristic, fromBase64(data), { withoutResponse });
      },
    };
    return descriptor.run(action, context);
  }

  /** Waits on the run's clock; a stop ends the wait at once. */
  private async wait(ms: number, why?: 'suppressionInterval' | 'reconnect'): Promise<void> {
    if (this.stopping) return;
    if (why) this.emit({ kind: 'waiting', at: this.now(), until: this.now() + ms, why });
    let timer;
    await Promise.race([
      new Promise<void>((resolve) => (timer = this.o.clock.setTimeout(resolve, ms))),
      this.stopSignal,
    ]);
    if (timer) this.o.clock.clearTimeout(timer);
  }

  private drop(queue: Queued[]): void {
    for (const { scenario } of queue.splice(0))
      this.emit({ kind: 'scenario-dropped', at: this.now(), scenario });
  }

  private now(): number {
    return this.o.clock.now();
  }

  private emit(event: TimelineEvent): void {
    this.o.onEvent(event);
  }
}

/**
 * The result code of a failed action: the link's failure (it went down, or the board stopped
 * answering) is a connection error, anything else the BLE stack reports is the GATT's answer.
 */
function classify(err: unknown, linkLost: string | undefined): ResultCode {
  if (linkLost !== undefined) return 'BLE_CONNECTION_ERROR';
  if (!(err instanceof BleError)) return 'RUNTIME_ERROR';
  return err.link !== undefined ? 'BLE_CONNECTION_ERROR' : 'GATT_ERROR';
}

function base64(data: Uint8Array): string {
  return Buffer.from(data).toString('base64');
}

function fromBase64(data: string): Uint8Array {
  return Uint8Array.from(Buffer.from(data, 'base64'));
}
