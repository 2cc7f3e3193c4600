// The BLE process: owns noble over the station's adapters (hardware, or the simulated bench's
// virtual controllers) and answers the app's requests. It runs apart from the app so that a native crash in the radio stack ends only
// this process; the app sees it exit, reports it and can start a new one.
import {
  AttError,
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
} from '../port';
import { formatAdapterSpec, parseAdapterSpec } from '../adapter-spec';
import { adapterTraceDir } from '../multi-central';
import { openStation } from '../open-station';
import { errorMessage } from '../../errors/message';
import { BondStore } from '../security-manager/bond-store';
import type { LinkRequest } from '../link-parameters';
import type { Direction } from '../hci/btsnoop';
import { TraceWriter } from '../hci/trace-store';
import type { SimulatedBench } from '../sim/bench';
import {
  dispatch,
  parseRequest,
  type CentralMethods,
  type HostConfig,
  type HostEvent,
  type HostMessage,
  type MethodHandlers,
  type Request,
  type SerializedError,
  type SimMethods,
} from './protocol';

/** Advertisements are sent in batches: one message per scan per window, not one per packet. */
const SCAN_BATCH_MS = 50;
/** How long to wait for the adapter to say what state it is in before reporting `unknown`. */
const STATE_WAIT_MS = 5_000;

export interface ParentPort {
  send(message: HostMessage): void;
  onMessage(handler: (message: Request) => void): void;
}

/** The station's bonds; a file that cannot be opened leaves bonds to this session's memory. */
async function openBonds(dir: string): Promise<BondStore> {
  const { openKeychain } = await import('../../secrets/keychain');
  const keychain = await openKeychain();
  try {
    return await BondStore.open(dir, keychain.store, keychain.status);
  } catch (err) {
    return BondStore.inMemory(errorMessage(err));
  }
}

export async function runHost(config: HostConfig, parent: ParentPort): Promise<void> {
  // Every session's HCI traffic, simulated or hardware, goes to a btsnoop trace per adapter
  // (docs/decisions.md, "HCI traces" and "Several adapters at once").
  const traceDir = config.traceDir;
  const bonds = config.bondsDir ? await openBonds(config.bondsDir) : undefined;
  const { central, bench } = await openStation(config.adapters.map(parseAdapterSpec), {
    bonds,
    bench: {
      boardFiles: config.boardFiles ?? [],
      stateFile: config.stateFile,
      setupFile: config.setupFile,
      seed: config.seed,
    },
    trace: (index, spec) => {
      if (!traceDir) return undefined;
      const writer = new TraceWriter(adapterTraceDir(traceDir, index, formatAdapterSpec(spec)));
      return (direction: Direction, packet: Uint8Array) => writer.record(direction, packet);
    },
  });

  const connections = new Map<string, BleConnection>();
  const scans = new Map<string, { stop: () => Promise<void>; flush: () => void }>();
  const subscriptions = new Map<string, () => Promise<void>>();
  let next = 0;
  const emit = (event: HostEvent) => parent.send(event);
  central.onStateChange((state) => emit({ type: 'event', event: 'state', state }));
  central.onAdaptersChange(() =>
    emit({ type: 'event', event: 'adapters', adapters: central.adapters() }),
  );

  const connection = (id: string): BleConnection => {
    const found = connections.get(id);
    if (!found) throw new BleError('connect', `no open connection ${id}; connect again`);
    return found;
  };

  const requestLink = (connectionId: string, request: LinkRequest) => {
    const link = connection(connectionId);
    if (!link.requestLink)
      throw new BleError('link', 'link controls need an HCI adapter (the simulated bench or hciN)');
    return link.requestLink(request);
  };

  const centralCalls: MethodHandlers<CentralMethods> = {
    startScan: async (filter) => {
      const scanId = `scan-${++next}`;
      let pending: Advertisement[] = [];
      const flush = () => {
        if (!pending.length) return;
        emit({ type: 'event', event: 'scan', scanId, ads: pending });
        pending = [];
      };
      const timer = setInterval(flush, SCAN_BATCH_MS);
      const handle = await central.startScan(filter, (ad) => pending.push(ad));
      scans.set(scanId, {
        flush,
        stop: async () => {
          clearInterval(timer);
          await handle.stop();
        },
      });
      return { scanId };
    },
    stopScan: async ({ scanId }) => {
      const scan = scans.get(scanId);
      scans.delete(scanId);
      await scan?.stop();
    },
    connect: async ({ deviceId, timeoutMs, mtu }) => {
      const link = await central.connect(deviceId, { timeoutMs, mtu });
      const connectionId = `link-${++next}`;
      connections.set(connectionId, link);
      link.onDisconnect((why) => {
        connections.delete(connectionId);
        emit({ type: 'event', event: 'disconnected', connectionId, reason: why });
      });
      link.onLinkChange?.((info) =>
        emit({ type: 'event', event: 'link', connectionId, link: info }),
      );
      return {
        connectionId,
        mtu: link.mtu,
        writesConfirmed: link.writesConfirmed,
        adapter: link.adapter,
        link: link.linkInfo?.(),
      };
    },
    updateConnection: ({ connectionId, parameters }) =>
      requestLink(connectionId, { kind: 'connectionParameters', parameters }),
    setPhy: ({ connectionId, phy }) => requestLink(connectionId, { kind: 'phy', phy }),
    pair: ({ connectionId, ...options }) => requestLink(connectionId, { kind: 'pair', ...options }),
    readRssi: ({ connectionId }) => requestLink(connectionId, { kind: 'rssi' }),
    discover: ({ connectionId }) => connection(connectionId).discover(),
    read: ({ connectionId, serviceUuid, characteristicUuid }) =>
      connection(connectionId).read(serviceUuid, characteristicUuid),
    write: ({ connectionId, serviceUuid, characteristicUuid, data, withoutResponse }) =>
      connection(connectionId).write(serviceUuid, characteristicUuid, data, { withoutResponse }),
    subscribe: async ({ connectionId, serviceUuid, characteristicUuid }) => {
      const subscriptionId = `sub-${++next}`;
      const off = await connection(connectionId).subscribe(
        serviceUuid,
        characteristicUuid,
        (data) => emit({ type: 'event', event: 'notify', subscriptionId, data }),
      );
      subscriptions.set(subscriptionId, off);
      return { subscriptionId };
    },
    unsubscribe: async ({ subscriptionId }) => {
      const off = subscriptions.get(subscriptionId);
      subscriptions.delete(subscriptionId);
      await off?.();
    },
    disconnect: async ({ connectionId }) => {
      const link = connections.get(connectionId);
      connections.delete(connectionId);
      await link?.disconnect();
    },
  };

  const simCalls: MethodHandlers<SimMethods> | undefined = bench && simHandlers(bench);

  parent.onMessage((request) => {
    void answer(request)
      .then((value) => parent.send({ type: 'response', id: request.id, ok: true, value }))
      .catch((err: unknown) =>
        parent.send({ type: 'response', id: request.id, ok: false, error: serialize(err) }),
      );
  });

  async function answer(request: Request): Promise<unknown> {
    const parsed = parseRequest(request);
    if (request.target === 'central') return dispatch(centralCalls, parsed);
    if (!simCalls) throw new Error('The simulated bench is off: the BLE process runs on hardware.');
    return dispatch(simCalls, parsed);
  }

  const state = await settledState(central);
  emit({ type: 'event', event: 'ready', state, adapters: central.adapters() });
}

/** The simulated bench's controls, each the bench method of the same name. */
function simHandlers(bench: SimulatedBench): MethodHandlers<SimMethods> {
  return {
    boards: () => bench.boards(),
    loadBoardFile: ({ path }) => bench.loadBoardFile(path),
    loadBoards: ({ text, source }) => bench.loadBoards(text, source),
    removeBoard: ({ boardId }) => bench.removeBoard(boardId),
    pressButton: ({ boardId, buttonId }) => bench.pressButton(boardId, buttonId),
    setFaults: ({ boardId, faults }) => bench.setFaults(boardId, faults),
    factoryReset: ({ boardId }) => bench.factoryReset(boardId),
  };
}

/** noble reports `unknown` until its binding has opened the adapter; wait for a real answer. */
export function settledState(central: BleCentral): Promise<AdapterState> {
  if (central.state() !== 'unknown') return Promise.resolve(central.state());
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(central.state()), STATE_WAIT_MS);
    const off = central.onStateChange((state) => {
      if (state !== 'unknown') done(state);
    });
    function done(state: AdapterState) {
      clearTimeout(timer);
      off();
      resolve(state);
    }
  });
}

function serialize(err: unknown): SerializedError {
  if (err instanceof BleError) {
    const att = err.cause instanceof AttError ? err.cause : undefined;
    return {
      name: err.name,
      message: err.message,
      step: err.step,
      deviceId: err.deviceId,
      att: att && { code: att.code, request: att.request, handle: att.attHandle },
      link: err.link,
    };
  }
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}
