// The app's side of the BLE process: starts it, turns requests into promises, and presents it
// to the rest of the app (its radio as a BleCentral: remote-central.ts). When the
// process dies, everything pending fails with a BleError that says so, and `onExit` tells the app.
import { fork } from 'node:child_process';
import type { LinkInfo } from '../link-parameters';
import { fileURLToPath } from 'node:url';
import {
  AttError,
  BleError,
  NotAllowedError,
  type AdapterState,
  type Advertisement,
  type BleStep,
} from '../port';
import type { AdapterView } from '../radio/multi-adapter-central';
import type { BoardLink, GattLogEntry } from '../link-record';
import type { PairingPrompt } from './pairing-prompts';
import type {
  CentralMethod,
  CentralMethods,
  HostChannel,
  HostConfig,
  HostEvent,
  HostMessage,
  MethodInput,
  MethodOutput,
  Request,
  SimMethod,
  SimMethods,
} from './protocol';

const READY_TIMEOUT_MS = 20_000;
/** A safety net only: every BLE step has its own, shorter timeout above this layer. */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * Tests only: a built BLE process (test/cli/cli-bundle.ts) that a host forked from the
 * TypeScript sources starts with plain `node` instead of loading the sources through tsx
 * (docs/decisions/tooling.md, "Eighth round"). Unset, as everywhere but the unit tests, nothing
 * changes; built code always forks the process beside it.
 */
let builtHostForSources: string | undefined;

/** Tests only: see builtHostForSources; `undefined` goes back to tsx. */
export function forkHostsFromSourcesWith(file: string | undefined): void {
  builtHostForSources = file;
}

/** Starts the BLE process as a Node child: from TypeScript sources through tsx, or built. */
export function forkHost(config: HostConfig): HostChannel {
  const fromSource = import.meta.url.endsWith('.ts');
  const built = fromSource ? builtHostForSources : undefined;
  const entry =
    built ?? fileURLToPath(new URL('./host-main' + (fromSource ? '.ts' : '.js'), import.meta.url));
  const child = fork(entry, [JSON.stringify(config)], {
    serialization: 'advanced',
    execArgv: fromSource && built === undefined ? ['--import', 'tsx'] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exitHandlers: ((reason: string) => void)[] = [];
  let exited = false;
  const exit = (reason: string) => {
    if (exited) return;
    exited = true;
    for (const handler of exitHandlers) handler(reason);
  };
  child.on('exit', (code, signal) =>
    exit(signal ? `ended by signal ${signal}` : `exited with code ${code}`),
  );
  child.on('error', (err) => exit(err.message));
  return {
    pid: child.pid,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    onMessage: (handler) => child.on('message', (m) => handler(m as HostMessage)),
    onExit: (handler) => exitHandlers.push(handler),
    kill: () => child.kill('SIGKILL'),
  };
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  step: BleStep;
}

const STEP: Record<CentralMethod, BleStep> = {
  startScan: 'scan',
  stopScan: 'scan',
  connect: 'connect',
  discover: 'discover',
  read: 'read',
  write: 'write',
  subscribe: 'subscribe',
  unsubscribe: 'subscribe',
  disconnect: 'disconnect',
  updateConnection: 'link',
  setPhy: 'link',
  setDataLength: 'link',
  pair: 'link',
  readRssi: 'link',
  reconnect: 'connect',
  links: 'link',
  forgetLink: 'link',
  clearLog: 'link',
  quietLog: 'link',
  unsubscribeFrom: 'subscribe',
  addAdapter: 'adapter',
  removeAdapter: 'adapter',
  linksOnAdapter: 'adapter',
  answerPairing: 'link',
  pairingPrompts: 'link',
  bonds: 'adapter',
  forgetBonds: 'adapter',
  keepTraceKeys: 'adapter',
  resetBonds: 'adapter',
};

/** What the process says of its links, as it says it (src/core/ble/host/link-book.ts). */
interface LinkEvents {
  links: (links: BoardLink[]) => void;
  log: (entry: GattLogEntry) => void;
  link: (connectionId: string, link: LinkInfo) => void;
  /** A pairing waits for the person (src/core/ble/host/pairing-prompts.ts). */
  prompt: (prompt: PairingPrompt) => void;
  /** A bond was kept or forgotten. */
  bonds: () => void;
}

export class BleHost {
  private readonly pending = new Map<number, Pending>();
  private readonly scanHandlers = new Map<string, (ad: Advertisement) => void>();
  private readonly notifyHandlers = new Map<string, (data: Uint8Array) => void>();
  private readonly disconnectHandlers = new Map<string, (reason: string) => void>();
  private readonly linkHandlers = new Map<string, (link: LinkInfo) => void>();
  private readonly stateHandlers = new Set<(state: AdapterState) => void>();
  private readonly exitHandlers = new Set<(reason: string, expected: boolean) => void>();
  private adapter: AdapterState = 'unknown';
  private nextId = 1;
  private gone: string | undefined;
  private stopping = false;
  /** Each of the station's adapters: state, links in use, why one could not be opened. */
  adapters: AdapterView[] = [];
  private readonly adapterHandlers = new Set<() => void>();
  /** The links the process holds, as its last `links` event listed them. */
  links: BoardLink[] = [];
  private readonly linkEvents = new Set<Partial<LinkEvents>>();

  private constructor(private readonly channel: HostChannel) {
    channel.onMessage((message) => this.receive(message));
    channel.onExit((reason) => this.exited(reason));
  }

  static async start(channel: HostChannel): Promise<BleHost> {
    const host = new BleHost(channel);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        channel.kill();
        reject(new BleError('adapter', 'The BLE process did not start within 20 s.'));
      }, READY_TIMEOUT_MS);
      host.readyWaiter = (err) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
    });
    return host;
  }

  private readyWaiter: ((err?: Error) => void) | undefined;

  /** Follows the process's links, their logs and link changes. */
  onLinks(handlers: Partial<LinkEvents>): () => void {
    this.linkEvents.add(handlers);
    return () => this.linkEvents.delete(handlers);
  }

  get pid(): number | undefined {
    return this.channel.pid;
  }

  get running(): boolean {
    return this.gone === undefined;
  }

  state(): AdapterState {
    return this.adapter;
  }

  onStateChange(handler: (state: AdapterState) => void): () => void {
    this.stateHandlers.add(handler);
    return () => this.stateHandlers.delete(handler);
  }

  /** Called when any adapter's state or links in use change. */
  onAdaptersChange(handler: () => void): () => void {
    this.adapterHandlers.add(handler);
    return () => this.adapterHandlers.delete(handler);
  }

  /** `expected` is false for a crash, true after `stop()`. */
  onExit(handler: (reason: string, expected: boolean) => void): () => void {
    this.exitHandlers.add(handler);
    return () => this.exitHandlers.delete(handler);
  }

  /** One radio method in the process; the process checks `input` against the method table. */
  call<M extends CentralMethod>(
    method: M,
    input: MethodInput<CentralMethods, M>,
  ): Promise<MethodOutput<CentralMethods, M>> {
    return this.request(
      { type: 'request', id: 0, target: 'central', method, input },
      STEP[method],
    ) as Promise<MethodOutput<CentralMethods, M>>;
  }

  /** One simulated-bench control; refused by a process on hardware. */
  sim<M extends SimMethod>(
    method: M,
    input: MethodInput<SimMethods, M>,
  ): Promise<MethodOutput<SimMethods, M>> {
    return this.request(
      { type: 'request', id: 0, target: 'sim', method, input },
      'adapter',
    ) as Promise<MethodOutput<SimMethods, M>>;
  }

  onScan(scanId: string, handler: ((ad: Advertisement) => void) | undefined): void {
    if (handler) this.scanHandlers.set(scanId, handler);
    else this.scanHandlers.delete(scanId);
  }

  onNotify(subscriptionId: string, handler: ((data: Uint8Array) => void) | undefined): void {
    if (handler) this.notifyHandlers.set(subscriptionId, handler);
    else this.notifyHandlers.delete(subscriptionId);
  }

  onLinkChange(connectionId: string, handler: ((link: LinkInfo) => void) | undefined): void {
    if (handler) this.linkHandlers.set(connectionId, handler);
    else this.linkHandlers.delete(connectionId);
  }

  onLinkDown(connectionId: string, handler: (reason: string) => void): void {
    this.disconnectHandlers.set(connectionId, handler);
  }

  async stop(): Promise<void> {
    if (this.gone !== undefined) return;
    this.stopping = true;
    const ended = new Promise<void>((resolve) => this.onExit(() => resolve()));
    this.channel.kill();
    await ended;
  }

  private request(message: Request, step: BleStep): Promise<unknown> {
    if (this.gone !== undefined)
      return Promise.reject(new BleError(step, `The BLE process is not running (${this.gone}).`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BleError(step, `The BLE process did not answer ${message.method} in 60 s.`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, step });
      this.channel.send({ ...message, id });
    });
  }

  private receive(message: HostMessage): void {
    if (message.type === 'response') {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.ok) pending.resolve(message.value);
      else {
        const { name, message: text, step, deviceId, att, link, detail } = message.error;
        const bleStep = (step as BleStep | undefined) ?? pending.step;
        const err =
          name === 'BleError'
            ? new BleError(bleStep, text, deviceId, {
                cause: att && new AttError(att.code, att.request, att.handle),
                link,
                detail,
              })
            : name === 'NotAllowedError'
              ? new NotAllowedError(bleStep, text, deviceId)
              : Object.assign(new Error(text), { name });
        pending.reject(err);
      }
      return;
    }
    this.event(message);
  }

  private event(event: HostEvent): void {
    switch (event.event) {
      case 'ready':
        this.adapter = event.state;
        this.adapters = event.adapters;
        this.readyWaiter?.();
        this.readyWaiter = undefined;
        return;
      case 'startFailed':
        this.readyWaiter?.(new BleError('adapter', event.message));
        this.readyWaiter = undefined;
        return;
      case 'state':
        this.adapter = event.state;
        for (const handler of this.stateHandlers) handler(event.state);
        return;
      case 'adapters':
        this.adapters = event.adapters;
        for (const handler of this.adapterHandlers) handler();
        return;
      case 'scan': {
        const handler = this.scanHandlers.get(event.scanId);
        if (handler) for (const ad of event.ads) handler(ad);
        return;
      }
      case 'notify':
        this.notifyHandlers.get(event.subscriptionId)?.(event.data);
        return;
      case 'disconnected':
        this.disconnectHandlers.get(event.connectionId)?.(event.reason);
        this.disconnectHandlers.delete(event.connectionId);
        this.linkHandlers.delete(event.connectionId);
        return;
      case 'link':
        this.linkHandlers.get(event.connectionId)?.(event.link);
        for (const on of this.linkEvents) on.link?.(event.connectionId, event.link);
        return;
      case 'links':
        this.links = event.links;
        for (const on of this.linkEvents) on.links?.(event.links);
        return;
      case 'gattLog':
        for (const on of this.linkEvents) on.log?.(event.entry);
        return;
      case 'pairingPrompt':
        for (const on of this.linkEvents) on.prompt?.(event.prompt);
        return;
      case 'bonds':
        for (const on of this.linkEvents) on.bonds?.();
        return;
    }
  }

  private exited(reason: string): void {
    this.gone = reason;
    this.readyWaiter?.(new BleError('adapter', `The BLE process ended while starting: ${reason}.`));
    this.readyWaiter = undefined;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new BleError(pending.step, `The BLE process stopped (${reason}).`));
      this.pending.delete(id);
    }
    for (const handler of this.disconnectHandlers.values()) handler('the BLE process stopped');
    this.disconnectHandlers.clear();
    this.adapter = 'unknown';
    this.links = [];
    for (const handler of this.exitHandlers) handler(reason, this.stopping);
  }
}
