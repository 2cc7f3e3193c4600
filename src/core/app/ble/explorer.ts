// The GATT explorer's open links: connect, discover, read, write and subscribe by connection
// id, and a log entry for everything that happened on each link.
import { EventEmitter } from 'node:events';
import {
  attErrorOf,
  BleError,
  normalizeUuid,
  type BleConnection,
  type ServiceInfo,
} from '../../ble/port';
import { ATT_ERROR, describeLengthRefusal } from '../../ble/att/codes';
import { characteristicFacts } from './board-names';
import { withCharacteristicName } from '../../ble/names/resolver';
import type { LinkInfo, LinkRequest } from '../../ble/link-parameters';
import { AppFailure } from '../errors';
import type { HostSupervisor } from './host-supervisor';
import { errorMessage } from '../../errors/message';

const CONNECT_TIMEOUT_MS = 10_000;

export interface GattLogEntry {
  connectionId: string;
  at: number;
  kind:
    | 'connect'
    | 'discover'
    | 'read'
    | 'write'
    | 'notify'
    | 'subscribe'
    | 'disconnect'
    | 'link'
    | 'error';
  serviceUuid?: string;
  characteristicUuid?: string;
  data?: string;
  message?: string;
  /** A write that resolved: false where the adapter cannot see a refusal (`native`). */
  writeConfirmed?: boolean;
}

interface Link {
  deviceId: string;
  connection: BleConnection;
  subscriptions: Map<string, () => Promise<void>>;
}

/** How a write the adapter could not confirm reads wherever it is shown. */
const NOT_CONFIRMED = 'not confirmed by the board (native adapter)';

const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

/** A link's timing and PHY in the words of the log. */
function describeLink(link: LinkInfo): string {
  return `interval ${link.intervalMs} ms, latency ${link.latency}, timeout ${link.supervisionTimeoutMs} ms, PHY ${link.txPhy}/${link.rxPhy}, security level ${link.securityLevel}`;
}

const REQUEST_LOG: Record<LinkRequest['kind'], string> = {
  connectionParameters: 'asked for connection parameters',
  phy: 'asked for a PHY',
  pair: 'paired',
  rssi: 'read the RSSI',
};

interface OpenedLink {
  connectionId: string;
  deviceId: string;
  mtu: number;
  services: ServiceInfo[];
  link?: LinkInfo;
}

export class Explorer extends EventEmitter<{
  log: [GattLogEntry];
  link: [{ connectionId: string; link: LinkInfo }];
}> {
  private readonly links = new Map<string, Link>();
  private next = 0;

  constructor(private readonly supervisor: HostSupervisor) {
    super();
  }

  async connect(deviceId: string, options: { mtu?: number } = {}): Promise<OpenedLink> {
    const central = await this.supervisor.central();
    const connectionId = `gatt-${++this.next}`;
    const connection = await central.connect(deviceId, {
      timeoutMs: CONNECT_TIMEOUT_MS,
      mtu: options.mtu,
    });
    this.links.set(connectionId, { deviceId, connection, subscriptions: new Map() });
    connection.onDisconnect((reason) => {
      this.links.delete(connectionId);
      this.log({ connectionId, kind: 'disconnect', message: reason });
    });
    connection.onLinkChange?.((link) => this.emit('link', { connectionId, link }));
    this.log({
      connectionId,
      kind: 'connect',
      message:
        options.mtu === undefined
          ? `MTU ${connection.mtu}`
          : `MTU ${connection.mtu} (asked for ${options.mtu})`,
    });
    try {
      const services = await connection.discover();
      this.log({
        connectionId,
        kind: 'discover',
        message: `${services.length} services, ${services.reduce((n, s) => n + s.characteristics.length, 0)} characteristics`,
      });
      return {
        connectionId,
        deviceId,
        mtu: connection.mtu,
        services,
        link: connection.linkInfo?.(),
      };
    } catch (err) {
      await connection.disconnect().catch(() => undefined);
      throw err;
    }
  }

  async read(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const data = await this.attempt(connectionId, serviceUuid, characteristicUuid, (c) =>
      c.read(serviceUuid, characteristicUuid),
    );
    this.log({ connectionId, kind: 'read', serviceUuid, characteristicUuid, data: hex(data) });
    return { data: hex(data) };
  }

  async write(
    connectionId: string,
    serviceUuid: string,
    characteristicUuid: string,
    data: string,
    withoutResponse: boolean,
  ) {
    const bytes = Uint8Array.from(Buffer.from(data, 'hex'));
    const link = this.link(connectionId);
    if (bytes.length > link.connection.mtu - 3)
      throw AppFailure.field(
        'data',
        `is ${bytes.length} bytes; one write carries at most ${link.connection.mtu - 3} at MTU ${link.connection.mtu}`,
      );
    await this.attempt(
      connectionId,
      serviceUuid,
      characteristicUuid,
      (c) => c.write(serviceUuid, characteristicUuid, bytes, { withoutResponse }),
      bytes.length,
    );
    const confirmed = link.connection.writesConfirmed;
    this.log({
      connectionId,
      kind: 'write',
      serviceUuid,
      characteristicUuid,
      data,
      message:
        [withoutResponse && 'without response', !confirmed && NOT_CONFIRMED]
          .filter(Boolean)
          .join('; ') || undefined,
      writeConfirmed: confirmed,
    });
    return { bytes: bytes.length, confirmed };
  }

  async subscribe(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const link = this.link(connectionId);
    const key = `${normalizeUuid(serviceUuid)}/${normalizeUuid(characteristicUuid)}`;
    if (!link.subscriptions.has(key)) {
      const off = await this.attempt(connectionId, serviceUuid, characteristicUuid, (c) =>
        c.subscribe(serviceUuid, characteristicUuid, (data) =>
          this.log({
            connectionId,
            kind: 'notify',
            serviceUuid,
            characteristicUuid,
            data: hex(data),
          }),
        ),
      );
      link.subscriptions.set(key, off);
      this.log({ connectionId, kind: 'subscribe', serviceUuid, characteristicUuid });
    }
    return { subscribed: true as const };
  }

  async unsubscribe(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const link = this.link(connectionId);
    const key = `${normalizeUuid(serviceUuid)}/${normalizeUuid(characteristicUuid)}`;
    const off = link.subscriptions.get(key);
    link.subscriptions.delete(key);
    await off?.();
    this.log({
      connectionId,
      kind: 'subscribe',
      serviceUuid,
      characteristicUuid,
      message: 'unsubscribed',
    });
    return { unsubscribed: true as const };
  }

  /** One link request; the log says what was asked and what the link is after it. */
  async requestLink(connectionId: string, request: LinkRequest): Promise<LinkInfo> {
    const { connection } = this.link(connectionId);
    if (!connection.requestLink)
      throw AppFailure.field(
        'connectionId',
        'has no link controls on this adapter (no HCI access)',
      );
    try {
      const link = await connection.requestLink(request);
      // The card reads the RSSI every few seconds: that would bury the log.
      if (request.kind !== 'rssi')
        this.log({
          connectionId,
          kind: 'link',
          message: `${REQUEST_LOG[request.kind]}: ${describeLink(link)}`,
        });
      return link;
    } catch (err) {
      this.log({ connectionId, kind: 'error', message: errorMessage(err) });
      throw err;
    }
  }

  /**
   * A new link to the same board asking for `mtu`: the only way to change a link's MTU, as the
   * client exchanges it once per link.
   */
  async reconnect(connectionId: string, mtu: number): Promise<OpenedLink> {
    const { deviceId } = this.link(connectionId);
    await this.disconnect(connectionId);
    return this.connect(deviceId, { mtu });
  }

  async disconnect(connectionId: string) {
    const link = this.links.get(connectionId);
    this.links.delete(connectionId);
    await link?.connection.disconnect();
    return { disconnected: true as const };
  }

  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.links.keys()].map((id) => this.disconnect(id).catch(() => undefined)),
    );
  }

  private link(connectionId: string): Link {
    const link = this.links.get(connectionId);
    if (!link)
      throw AppFailure.field('connectionId', `is not an open connection (it may have dropped)`);
    return link;
  }

  /** Runs one GATT operation, logging its failure on the link before passing it on. */
  private async attempt<T>(
    connectionId: string,
    serviceUuid: string,
    characteristicUuid: string,
    run: (connection: BleConnection) => Promise<T>,
    written?: number,
  ): Promise<T> {
    const link = this.link(connectionId);
    try {
      return await run(link.connection);
    } catch (err) {
      await this.explain(err, link.connection.id, characteristicUuid, written);
      this.log({
        connectionId,
        kind: 'error',
        serviceUuid,
        characteristicUuid,
        message: errorMessage(err),
      });
      throw err;
    }
  }

  /**
   * Names the characteristic the way the explorer shows it (its name beside the UUID) and, for
   * a write refused as the wrong length, says the characteristic's longest value against the
   * bytes written, in the error's own text, so every place that shows it says the same.
   */
  private async explain(
    err: unknown,
    deviceId: string,
    characteristicUuid: string,
    written: number | undefined,
  ): Promise<void> {
    if (!(err instanceof BleError)) return;
    const facts = await characteristicFacts(this.supervisor, deviceId, characteristicUuid).catch(
      () => ({ name: undefined, maxLength: undefined }),
    );
    err.message = withCharacteristicName(err.message, characteristicUuid, facts.name);
    if (written !== undefined && attErrorOf(err)?.code === ATT_ERROR.invalidAttributeValueLength)
      err.message = `${err.message}: ${describeLengthRefusal(written, facts.maxLength)}`;
  }

  private log(entry: Omit<GattLogEntry, 'at'>): void {
    this.emit('log', { at: Date.now(), ...entry });
  }
}
