// Scans for the UI: advertisements folded per board and sent as one batch every 200 ms, so a
// bench of 500 boards advertising at 10 Hz is 5 small messages a second, not 5,000. Every board
// heard is remembered, so provisioning can find a board the user picked from the list.
import { EventEmitter } from 'node:events';
import type { Advertisement, ScanFilter, ScanHandle } from '../../ble/port';
import type { ScannedDevice } from './bench-schema';
import { SetupError } from '../errors';
import type { HostSupervisor } from './host-supervisor';

const BATCH_MS = 200;

export interface ScanBatch {
  scanId: string;
  at: number;
  devices: ScannedDevice[];
  advertisements: number;
}

export class ScanFeed extends EventEmitter<{ batch: [ScanBatch] }> {
  private readonly scans = new Map<string, { handle: ScanHandle; timer: NodeJS.Timeout }>();
  private readonly seen = new Map<string, Advertisement>();
  private next = 0;

  constructor(private readonly supervisor: HostSupervisor) {
    super();
  }

  async start(filter: ScanFilter): Promise<string> {
    const central = await this.supervisor.central('explorer');
    const scanId = `ui-scan-${++this.next}`;
    let pending = new Map<string, ScannedDevice>();
    let count = 0;
    const handle = await central.startScan(filter, (ad) => {
      this.seen.set(ad.id, ad);
      count += 1;
      const sample = { at: ad.seenAt, rssi: ad.rssi };
      const known = pending.get(ad.id);
      pending.set(ad.id, {
        id: ad.id,
        address: ad.address,
        localName: ad.localName,
        serviceUuids: ad.serviceUuids,
        manufacturerData: ad.manufacturerData && Buffer.from(ad.manufacturerData).toString('hex'),
        txPowerLevel: ad.txPowerLevel,
        advertisingData: ad.advertisingData && Buffer.from(ad.advertisingData).toString('hex'),
        scanResponseData: ad.scanResponseData && Buffer.from(ad.scanResponseData).toString('hex'),
        connectable: ad.connectable,
        rssi: ad.rssi,
        rssiSamples: known ? [...known.rssiSamples, sample] : [sample],
        lastSeen: ad.seenAt,
        formerIds: ad.formerIds,
      });
    });
    const timer = setInterval(() => {
      if (!pending.size) return;
      const devices = [...pending.values()];
      pending = new Map();
      this.emit('batch', { scanId, at: Date.now(), devices, advertisements: count });
      count = 0;
    }, BATCH_MS);
    this.scans.set(scanId, { handle, timer });
    return scanId;
  }

  async stop(scanId: string): Promise<void> {
    const scan = this.scans.get(scanId);
    if (!scan) return;
    this.scans.delete(scanId);
    clearInterval(scan.timer);
    await scan.handle.stop().catch(() => undefined);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.scans.keys()].map((id) => this.stop(id)));
  }

  /** The last advertisement of a board heard by any UI scan. */
  board(deviceId: string): Advertisement {
    const ad = this.seen.get(deviceId);
    if (!ad)
      throw new SetupError('deviceId', `board ${deviceId} has not been heard: scan for it first`);
    return ad;
  }
}
