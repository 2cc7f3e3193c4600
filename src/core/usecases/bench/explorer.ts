// The GATT explorer's side of the links the BLE process holds: connect, discover, read, write
// and subscribe by connection id, on any link the process lists (docs/decisions.md, "The BLE
// process holds the links"). The process keeps each link's GATT table and log; this checks
// what the app can check first (a write longer than the link carries) and answers in the
// contract's shapes.
import { confirmsWrites, parseAdapterSpec } from '../../ble/adapter-spec';
import type { BleHost } from '../../ble/host/ble-host';
import { pairOptions, type LinkInfo, type LinkRequest } from '../../ble/link-parameters';
import { subscriptionKey, type BoardLink } from '../../ble/link-record';
import type { GattConnection } from './bench-schema';
import { SetupError } from '../errors';
import type { HostSupervisor } from './host-supervisor';

const CONNECT_TIMEOUT_MS = 10_000;

const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

export class Explorer {
  constructor(private readonly supervisor: HostSupervisor) {}

  async connect(deviceId: string, options: { mtu?: number } = {}): Promise<GattConnection> {
    const host = await this.supervisor.ensure();
    const { connectionId } = await host.call('connect', {
      deviceId,
      timeoutMs: CONNECT_TIMEOUT_MS,
      mtu: options.mtu,
      user: 'explorer',
    });
    try {
      await host.call('discover', { connectionId });
    } catch (err) {
      await host.call('disconnect', { connectionId }).catch(() => undefined);
      throw err;
    }
    return this.opened(host, connectionId);
  }

  /**
   * The board of `connectionId` on a new link under the same id, its log kept: after a drop, or
   * asking for `mtu` (ATT exchanges the MTU once per link).
   */
  async reconnect(connectionId: string, mtu: number | undefined): Promise<GattConnection> {
    const host = await this.host(connectionId);
    await host.call('reconnect', { connectionId, mtu, timeoutMs: CONNECT_TIMEOUT_MS });
    // The link stays on its card if discovery fails: its log says why, and Reconnect is there.
    await host.call('discover', { connectionId });
    return this.opened(host, connectionId);
  }

  async read(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const host = await this.connected(connectionId);
    const data = await host.call('read', { connectionId, serviceUuid, characteristicUuid });
    return { data: hex(data) };
  }

  async write(
    connectionId: string,
    serviceUuid: string,
    characteristicUuid: string,
    data: string,
    withoutResponse: boolean,
  ) {
    const host = await this.connected(connectionId);
    const link = this.record(host, connectionId);
    const bytes = Uint8Array.from(Buffer.from(data, 'hex'));
    if (bytes.length > link.mtu - 3)
      throw new SetupError(
        'data',
        `is ${bytes.length} bytes; one write carries at most ${link.mtu - 3} at MTU ${link.mtu}`,
      );
    await host.call('write', {
      connectionId,
      serviceUuid,
      characteristicUuid,
      data: bytes,
      withoutResponse,
    });
    const confirmed = link.adapter === undefined || confirmsWrites(parseAdapterSpec(link.adapter));
    return { bytes: bytes.length, confirmed };
  }

  async subscribe(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const host = await this.connected(connectionId);
    const key = subscriptionKey(serviceUuid, characteristicUuid);
    if (!this.record(host, connectionId).subscriptions.includes(key))
      await host.call('subscribe', { connectionId, serviceUuid, characteristicUuid });
    return { subscribed: true as const };
  }

  async unsubscribe(connectionId: string, serviceUuid: string, characteristicUuid: string) {
    const host = await this.host(connectionId);
    await host.call('unsubscribeFrom', { connectionId, serviceUuid, characteristicUuid });
    return { unsubscribed: true as const };
  }

  /** One link request; the process logs what was asked and what the link is after it. */
  async requestLink(connectionId: string, request: LinkRequest): Promise<LinkInfo> {
    const host = await this.connected(connectionId);
    if (!this.record(host, connectionId).info)
      throw new SetupError('connectionId', 'has no link controls on this adapter (no HCI access)');
    switch (request.kind) {
      case 'connectionParameters':
        return host.call('updateConnection', { connectionId, parameters: request.parameters });
      case 'phy':
        return host.call('setPhy', { connectionId, phy: request.phy });
      case 'dataLength':
        return host.call('setDataLength', { connectionId, octets: request.octets });
      case 'pair':
        return host.call('pair', { connectionId, ...pairOptions(request) });
      case 'rssi':
        return host.call('readRssi', { connectionId });
    }
  }

  /** Clears the link's log where it is kept, so no window or reload shows it again. */
  async clearLog(connectionId: string) {
    const host = await this.host(connectionId);
    await host.call('clearLog', { connectionId });
    return { cleared: true as const };
  }

  /**
   * Ends a link (whoever opened it): the explorer's stays listed as ended by its user, with its
   * log and Reconnect; a link already down is taken off the list (its card's Dismiss).
   */
  async disconnect(connectionId: string) {
    const host = await this.supervisor.ensure();
    const link = host.links.find((l) => l.connectionId === connectionId);
    if (link?.state === 'dropped') await host.call('forgetLink', { connectionId });
    else if (link) await host.call('disconnect', { connectionId, keep: true });
    return { disconnected: true as const };
  }

  /**
   * The link as the explorer answers it, once discovered: the process lists a link's new table
   * before it answers the discover that found it.
   */
  private opened(host: BleHost, connectionId: string): GattConnection {
    const link = this.record(host, connectionId);
    return {
      connectionId,
      deviceId: link.deviceId,
      mtu: link.mtu,
      services: link.services,
      link: link.info,
    };
  }

  private async host(connectionId: string): Promise<BleHost> {
    const host = await this.supervisor.ensure();
    this.record(host, connectionId);
    return host;
  }

  private async connected(connectionId: string): Promise<BleHost> {
    const host = await this.host(connectionId);
    if (this.record(host, connectionId).state !== 'connected')
      throw new SetupError('connectionId', 'has dropped: reconnect first');
    return host;
  }

  private record(host: BleHost, connectionId: string): BoardLink {
    const link = host.links.find((l) => l.connectionId === connectionId);
    if (!link) throw new SetupError('connectionId', 'is not an open connection');
    return link;
  }
}
