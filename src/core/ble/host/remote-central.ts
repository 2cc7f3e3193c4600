// The BLE process's radio as a BleCentral, and its links as BleConnections, over the process
// boundary: provisioning, the scenario engine and the firmware use case hold these and do not
// know the radio is elsewhere (docs/architecture.md, "Processes").
import { confirmsWrites, parseAdapterSpec } from '../adapter-spec';
import { pairOptions, type LinkInfo, type LinkRequest } from '../link-parameters';
import type { LinkUser } from '../link-record';
import {
  BleError,
  type AdapterState,
  type Advertisement,
  type BleCentral,
  type BleConnection,
  type ConnectOptions,
  type ScanFilter,
  type ScanHandle,
  type ServiceInfo,
} from '../port';
import type { BleHost } from './ble-host';
import type { CentralMethods, MethodOutput } from './protocol';

/** The radio as a BleCentral whose links the process lists as `user`'s. */
export function remoteCentral(host: BleHost, user: LinkUser): BleCentral {
  return new RemoteCentral(host, user);
}

/**
 * A link the process holds already (a card on the BLE bench), as a BleConnection: its
 * disconnect ends that link. Refused for a link that is not listed or not connected.
 */
export function attachLink(host: BleHost, connectionId: string): BleConnection {
  const link = host.links.find((l) => l.connectionId === connectionId);
  if (!link || link.state !== 'connected')
    throw new BleError('connect', `link ${connectionId} is not connected`);
  const writesConfirmed =
    link.adapter === undefined || confirmsWrites(parseAdapterSpec(link.adapter));
  return new RemoteConnection(host, link.deviceId, {
    connectionId,
    mtu: link.mtu,
    writesConfirmed,
    adapter: link.adapter,
    link: link.info,
  });
}

/** BleCentral over the process boundary. */
class RemoteCentral implements BleCentral {
  constructor(
    private readonly host: BleHost,
    private readonly user: LinkUser,
  ) {}

  state(): AdapterState {
    return this.host.state();
  }

  onStateChange(handler: (state: AdapterState) => void): () => void {
    return this.host.onStateChange(handler);
  }

  async startScan(
    filter: ScanFilter,
    onAdvertisement: (ad: Advertisement) => void,
  ): Promise<ScanHandle> {
    const { scanId } = await this.host.call('startScan', filter);
    this.host.onScan(scanId, onAdvertisement);
    return {
      stop: async () => {
        this.host.onScan(scanId, undefined);
        if (this.host.running) await this.host.call('stopScan', { scanId });
      },
    };
  }

  async connect(id: string, options?: ConnectOptions): Promise<BleConnection> {
    const link = await this.host.call('connect', {
      deviceId: id,
      timeoutMs: options?.timeoutMs,
      mtu: options?.mtu,
      user: this.user,
    });
    return new RemoteConnection(this.host, id, link);
  }

  async close(): Promise<void> {
    await this.host.stop();
  }
}

class RemoteConnection implements BleConnection {
  private readonly connectionId: string;
  readonly mtu: number;
  readonly writesConfirmed: boolean;
  readonly adapter: string | undefined;
  private readonly downHandlers = new Set<(reason: string) => void>();
  private readonly linkHandlers = new Set<(link: LinkInfo) => void>();
  private down: string | undefined;
  private link: LinkInfo | undefined;

  constructor(
    private readonly host: BleHost,
    readonly id: string,
    link: MethodOutput<CentralMethods, 'connect'>,
  ) {
    this.connectionId = link.connectionId;
    this.mtu = link.mtu;
    this.writesConfirmed = link.writesConfirmed;
    this.adapter = link.adapter;
    this.link = link.link;
    host.onLinkDown(this.connectionId, (reason) => {
      this.down = reason;
      for (const handler of this.downHandlers) handler(reason);
    });
    host.onLinkChange(this.connectionId, (info) => {
      this.link = info;
      for (const handler of this.linkHandlers) handler(info);
    });
  }

  linkInfo(): LinkInfo | undefined {
    return this.down === undefined ? this.link : undefined;
  }

  onLinkChange(handler: (link: LinkInfo) => void): () => void {
    this.linkHandlers.add(handler);
    return () => this.linkHandlers.delete(handler);
  }

  async requestLink(request: LinkRequest): Promise<LinkInfo> {
    const connectionId = this.connectionId;
    const link =
      request.kind === 'connectionParameters'
        ? await this.host.call('updateConnection', {
            connectionId,
            parameters: request.parameters,
          })
        : request.kind === 'phy'
          ? await this.host.call('setPhy', { connectionId, phy: request.phy })
          : request.kind === 'dataLength'
            ? await this.host.call('setDataLength', { connectionId, octets: request.octets })
            : request.kind === 'pair'
              ? await this.host.call('pair', { connectionId, ...pairOptions(request) })
              : await this.host.call('readRssi', { connectionId });
    this.link = link;
    return link;
  }

  discover(): Promise<ServiceInfo[]> {
    return this.host.call('discover', { connectionId: this.connectionId });
  }

  read(serviceUuid: string, characteristicUuid: string): Promise<Uint8Array> {
    return this.host.call('read', {
      connectionId: this.connectionId,
      serviceUuid,
      characteristicUuid,
    });
  }

  async write(
    serviceUuid: string,
    characteristicUuid: string,
    data: Uint8Array,
    options?: { withoutResponse?: boolean },
  ): Promise<void> {
    await this.host.call('write', {
      connectionId: this.connectionId,
      serviceUuid,
      characteristicUuid,
      data,
      withoutResponse: options?.withoutResponse ?? false,
    });
  }

  async subscribe(
    serviceUuid: string,
    characteristicUuid: string,
    onValue: (data: Uint8Array) => void,
  ): Promise<() => Promise<void>> {
    const { subscriptionId } = await this.host.call('subscribe', {
      connectionId: this.connectionId,
      serviceUuid,
      characteristicUuid,
    });
    this.host.onNotify(subscriptionId, onValue);
    return async () => {
      this.host.onNotify(subscriptionId, undefined);
      if (this.host.running && this.down === undefined)
        await this.host.call('unsubscribe', { subscriptionId });
    };
  }

  async disconnect(): Promise<void> {
    if (this.down !== undefined || !this.host.running) return;
    await this.host.call('disconnect', { connectionId: this.connectionId });
  }

  onDisconnect(handler: (reason: string) => void): () => void {
    if (this.down !== undefined) {
      handler(this.down);
      return () => {};
    }
    this.downHandlers.add(handler);
    return () => this.downHandlers.delete(handler);
  }
}
