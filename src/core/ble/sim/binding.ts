// A noble binding over the simulated bench: the object `@abandonware/noble/with-bindings`
// drives, emitting exactly the events noble's HCI binding emits (ids are the address without
// colons, UUIDs lowercase without dashes, disconnect reasons are HCI codes), so noble's own
// Peripheral, Service and Characteristic code runs unchanged. ATT errors, which noble has no
// event for, are also emitted as `attError` for the adapter (noble.ts) to pick up.
import { EventEmitter } from 'node:events';
import type { AdapterState } from '../port';
import { ATT_ERROR } from '../att/codes';
import { HCI_ERROR } from '../hci/codes';
import type { AttResult, SimBoard } from './board';
import type { SimClock, SimTimer } from './clock';

/** The descriptor every notifying characteristic has: the Client Characteristic Configuration. */
const CCCD = '2902';

/** What the binding needs from the bench it belongs to. */
export interface SimBindingHost {
  readonly clock: SimClock;
  adapterState(): AdapterState;
  board(id: string): SimBoard | undefined;
  attachBinding(binding: SimBinding): void;
  detachBinding(binding: SimBinding): void;
  scanningChanged(): void;
}

export type AttOperation =
  'read' | 'write' | 'notify' | 'readDescriptor' | 'writeDescriptor' | 'readHandle' | 'writeHandle';

interface Link {
  id: string;
  board: SimBoard;
  open: boolean;
  /** ATT is one request at a time: the next operation starts when this one is answered. */
  busyUntil: number;
  timers: Set<SimTimer>;
}

interface HandleTable {
  services: Map<string, { startHandle: number; endHandle: number }>;
  values: Map<number, { service: string; characteristic: string }>;
}

let nextAdapter = 1;

export class SimBinding extends EventEmitter {
  private readonly host: SimBindingHost;
  private readonly links = new Map<string, Link>();
  private readonly connecting = new Map<string, SimTimer>();
  private scanFilter: string[] | null = null;
  private initialized = false;
  private lastState: AdapterState | null = null;
  readonly address: string;

  constructor(host: SimBindingHost) {
    super();
    this.host = host;
    const n = nextAdapter++;
    this.address = `00:1a:7d:da:${((n >> 8) & 0xff).toString(16).padStart(2, '0')}:${(n & 0xff).toString(16).padStart(2, '0')}`;
  }

  get scanning(): boolean {
    return this.scanFilter !== null;
  }

  init(): void {
    if (this.initialized) return;
    this.initialized = true;
    this.host.attachBinding(this);
    process.nextTick(() => {
      this.emit('addressChange', this.address);
      this.adapterStateChanged();
    });
  }

  /** The bench's adapter was switched (on, off…): scans and links end when it is not on. */
  adapterStateChanged(): void {
    const state = this.host.adapterState();
    if (state === this.lastState) return;
    this.lastState = state;
    if (state !== 'poweredOn') {
      if (this.scanFilter) this.stopScanning();
      for (const link of [...this.links.values()])
        this.closeLink(link, HCI_ERROR.connectionTimeout);
    }
    this.emit('stateChange', state === 'noAdapter' ? 'unsupported' : state);
  }

  /** Ends every link and leaves the bench (the central was closed). */
  dispose(): void {
    for (const timer of this.connecting.values()) this.host.clock.clearTimeout(timer);
    this.connecting.clear();
    for (const link of [...this.links.values()])
      this.closeLink(link, HCI_ERROR.localHostTerminated);
    this.scanFilter = null;
    this.host.detachBinding(this);
    this.host.scanningChanged();
  }

  setScanParameters(): void {
    process.nextTick(() => this.emit('scanParametersSet'));
  }

  startScanning(serviceUuids?: string[], allowDuplicates?: boolean): void {
    this.scanFilter = serviceUuids ?? [];
    this.host.scanningChanged();
    process.nextTick(() => this.emit('scanStart', !allowDuplicates));
  }

  stopScanning(): void {
    this.scanFilter = null;
    this.host.scanningChanged();
    process.nextTick(() => this.emit('scanStop'));
  }

  /** One advertisement on the air (called by the bench's advertising ticker). */
  advertisementReceived(
    board: SimBoard,
    advertisement: ReturnType<SimBoard['advertisement']>,
    rssi: number,
  ): void {
    const filter = this.scanFilter;
    if (!filter) return;
    // Filtering on the advertised services is what noble's HCI binding does itself.
    if (filter.length && !advertisement.serviceUuids.some((u) => filter.includes(u))) return;
    this.emit(
      'discover',
      board.id,
      board.address,
      board.addressType,
      board.connectable,
      advertisement,
      rssi,
      true,
    );
  }

  connect(id: string): void {
    const board = this.host.board(id);
    // Like an HCI create-connection to a board that is not advertising: nothing happens until
    // the central gives up (noble.ts bounds it with a timeout and cancels).
    if (!board || !board.advertising || !board.connectable || this.connecting.has(id)) return;
    const timer = this.host.clock.setTimeout(() => {
      this.connecting.delete(id);
      if (board.refusesConnection() || !board.advertising) {
        this.emit(
          'connect',
          id,
          new Error(
            `Connection Failed to be Established (0x${HCI_ERROR.connectionFailedToBeEstablished.toString(16)})`,
          ),
        );
        return;
      }
      const link: Link = {
        id,
        board,
        open: true,
        busyUntil: this.host.clock.now(),
        timers: new Set(),
      };
      this.links.set(id, link);
      board.attach({
        notify: (service, characteristic, data) =>
          this.operation(link, () =>
            this.emit('read', id, service, characteristic, Buffer.from(data), true),
          ),
        drop: (reason) => this.closeLink(link, reason),
      });
      this.emit('connect', id, null);
      this.emit('onMtu', id, board.mtu);
    }, board.latency('connect'));
    this.connecting.set(id, timer);
  }

  cancelConnect(id: string): void {
    const timer = this.connecting.get(id);
    if (timer) this.host.clock.clearTimeout(timer);
    this.connecting.delete(id);
  }

  disconnect(id: string): void {
    const link = this.links.get(id);
    if (!link) return;
    this.operation(link, () => this.closeLink(link, HCI_ERROR.localHostTerminated));
  }

  reset(): void {
    for (const link of [...this.links.values()])
      this.closeLink(link, HCI_ERROR.localHostTerminated);
  }

  updateRssi(id: string): void {
    this.withLink(id, (link) => this.emit('rssiUpdate', id, link.board.rssi()));
  }

  discoverServices(id: string, uuids?: string[]): void {
    this.withLink(id, (link) => {
      const services = link.board
        .services()
        .filter((s) => !uuids?.length || uuids.includes(s.uuid));
      const handles = this.handleTable(link);
      const ranges = services.map((s) => ({ uuid: s.uuid, ...handles.services.get(s.uuid) }));
      this.emit('servicesDiscovered', id, ranges);
      this.emit(
        'servicesDiscover',
        id,
        services.map((s) => s.uuid),
      );
    });
  }

  discoverIncludedServices(id: string, serviceUuid: string): void {
    this.withLink(id, () => this.emit('includedServicesDiscover', id, serviceUuid, []));
  }

  discoverCharacteristics(id: string, serviceUuid: string, uuids?: string[]): void {
    this.withLink(id, (link) => {
      const service = link.board.services().find((s) => s.uuid === serviceUuid);
      const found = (service?.characteristics ?? []).filter(
        (c) => !uuids?.length || uuids.includes(c.uuid),
      );
      const handles = [...this.handleTable(link).values.entries()];
      const withHandles = found.map((c) => {
        const valueHandle =
          handles.find(([, v]) => v.service === serviceUuid && v.characteristic === c.uuid)?.[0] ??
          0;
        return { ...c, startHandle: valueHandle - 1, valueHandle };
      });
      this.emit('characteristicsDiscovered', id, serviceUuid, withHandles);
      this.emit(
        'characteristicsDiscover',
        id,
        serviceUuid,
        found.map((c) => ({ uuid: c.uuid, properties: c.properties })),
      );
    });
  }

  read(id: string, serviceUuid: string, characteristicUuid: string): void {
    this.withLink(id, (link) => {
      const result = link.board.read(serviceUuid, characteristicUuid);
      if (result.ok)
        this.emit('read', id, serviceUuid, characteristicUuid, Buffer.from(result.data), false);
      else this.attError(id, serviceUuid, characteristicUuid, 'read', result.code);
    });
  }

  write(
    id: string,
    serviceUuid: string,
    characteristicUuid: string,
    data: Buffer,
    withoutResponse: boolean,
  ): void {
    this.withLink(id, (link) => {
      const result = link.board.write(
        serviceUuid,
        characteristicUuid,
        Uint8Array.from(data),
        withoutResponse,
      );
      if ('drop' in result) {
        this.closeLink(link, HCI_ERROR.connectionTimeout);
        return;
      }
      // A write without response has no answer to carry an error: noble reports it sent.
      if (result.ok || withoutResponse) this.emit('write', id, serviceUuid, characteristicUuid);
      else this.attError(id, serviceUuid, characteristicUuid, 'write', result.code);
    });
  }

  broadcast(id: string, serviceUuid: string, characteristicUuid: string, broadcast: boolean): void {
    this.withLink(id, () => this.emit('broadcast', id, serviceUuid, characteristicUuid, broadcast));
  }

  notify(id: string, serviceUuid: string, characteristicUuid: string, notify: boolean): void {
    this.withLink(id, (link) => {
      const result = link.board.setNotify(serviceUuid, characteristicUuid, notify);
      if (result.ok) this.emit('notify', id, serviceUuid, characteristicUuid, notify);
      else this.attError(id, serviceUuid, characteristicUuid, 'notify', result.code);
    });
  }

  discoverDescriptors(id: string, serviceUuid: string, characteristicUuid: string): void {
    this.withLink(id, (link) => {
      const c = link.board
        .services()
        .find((s) => s.uuid === serviceUuid)
        ?.characteristics.find((x) => x.uuid === characteristicUuid);
      const notifies = c?.properties.some((p) => p === 'notify' || p === 'indicate');
      this.emit('descriptorsDiscover', id, serviceUuid, characteristicUuid, notifies ? [CCCD] : []);
    });
  }

  readValue(
    id: string,
    serviceUuid: string,
    characteristicUuid: string,
    descriptorUuid: string,
  ): void {
    this.withLink(id, (link) => {
      if (descriptorUuid !== CCCD)
        return this.attError(
          id,
          serviceUuid,
          characteristicUuid,
          'readDescriptor',
          ATT_ERROR.attributeNotFound,
        );
      const on = link.board.isSubscribed(serviceUuid, characteristicUuid);
      this.emit(
        'valueRead',
        id,
        serviceUuid,
        characteristicUuid,
        descriptorUuid,
        Buffer.from([on ? 1 : 0, 0]),
      );
    });
  }

  writeValue(
    id: string,
    serviceUuid: string,
    characteristicUuid: string,
    descriptorUuid: string,
    data: Buffer,
  ): void {
    this.withLink(id, (link) => {
      const result: AttResult =
        descriptorUuid === CCCD
          ? link.board.setNotify(serviceUuid, characteristicUuid, ((data[0] ?? 0) & 0x03) !== 0)
          : { ok: false, code: ATT_ERROR.attributeNotFound };
      if (result.ok) this.emit('valueWrite', id, serviceUuid, characteristicUuid, descriptorUuid);
      else this.attError(id, serviceUuid, characteristicUuid, 'writeDescriptor', result.code);
    });
  }

  readHandle(id: string, handle: number): void {
    this.withLink(id, (link) => {
      const target = this.handleTable(link).values.get(handle);
      const result: AttResult = target
        ? link.board.read(target.service, target.characteristic)
        : { ok: false, code: ATT_ERROR.invalidHandle };
      if (result.ok) this.emit('handleRead', id, handle, Buffer.from(result.data));
      else
        this.attError(
          id,
          target?.service ?? '',
          target?.characteristic ?? '',
          'readHandle',
          result.code,
        );
    });
  }

  writeHandle(id: string, handle: number, data: Buffer, withoutResponse: boolean): void {
    this.withLink(id, (link) => {
      const target = this.handleTable(link).values.get(handle);
      const result = target
        ? link.board.write(
            target.service,
            target.characteristic,
            Uint8Array.from(data),
            withoutResponse,
          )
        : { ok: false as const, code: ATT_ERROR.invalidHandle };
      if ('drop' in result) return this.closeLink(link, HCI_ERROR.connectionTimeout);
      if (result.ok || withoutResponse) this.emit('handleWrite', id, handle);
      else
        this.attError(
          id,
          target?.service ?? '',
          target?.characteristic ?? '',
          'writeHandle',
          result.code,
        );
    });
  }

  private attError(
    id: string,
    serviceUuid: string,
    characteristicUuid: string,
    operation: AttOperation,
    code: number,
  ): void {
    this.emit('attError', id, serviceUuid, characteristicUuid, operation, code);
  }

  /** Runs `answer` once the board has taken its time; nothing happens if the link is gone. */
  private withLink(id: string, answer: (link: Link) => void): void {
    const link = this.links.get(id);
    // noble's HCI binding warns and drops requests for unknown peripherals; so does the sim.
    if (!link) return;
    this.operation(link, () => answer(link));
  }

  private operation(link: Link, run: () => void): void {
    const clock = this.host.clock;
    const now = clock.now();
    const done = Math.max(now, link.busyUntil) + link.board.latency('operation');
    link.busyUntil = done;
    const timer = clock.setTimeout(() => {
      link.timers.delete(timer);
      if (link.open) run();
    }, done - now);
    link.timers.add(timer);
  }

  private closeLink(link: Link, reason: number): void {
    if (!link.open) return;
    link.open = false;
    for (const timer of link.timers) this.host.clock.clearTimeout(timer);
    link.timers.clear();
    this.links.delete(link.id);
    link.board.detach();
    this.emit('disconnect', link.id, reason);
  }

  /** Attribute handles as a GATT server numbers them: service, then declaration + value (+ CCCD) per characteristic. */
  private handleTable(link: Link): HandleTable {
    const table: HandleTable = { services: new Map(), values: new Map() };
    let handle = 0;
    for (const s of link.board.services()) {
      const startHandle = ++handle;
      for (const c of s.characteristics) {
        handle += 2;
        table.values.set(handle, { service: s.uuid, characteristic: c.uuid });
        if (c.properties.includes('notify') || c.properties.includes('indicate')) handle++;
      }
      table.services.set(s.uuid, { startHandle, endHandle: handle });
    }
    return table;
  }
}
