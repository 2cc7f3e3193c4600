// The scan list's model: boards keyed by id, each with its latest advertisement and a short
// RSSI history, merged batch by batch so a row object changes only when its board was heard.
import type { ScannedDevice } from '../../core/usecases/bench/bench-schema';
import { sameUuid } from '../../core/ble/port';
import { measuredRssi, meetsMinRssi, strongerFirst } from '../../core/ble/rssi';

/** RSSI samples kept per board for its sparkline. */
export const HISTORY = 60;

export interface ScanEntry {
  device: ScannedDevice;
  history: readonly number[];
}

export type ScanMap = ReadonlyMap<string, ScanEntry>;

export function mergeBatch(prev: ScanMap, devices: readonly ScannedDevice[]): ScanMap {
  if (devices.length === 0) return prev;
  const next = new Map(prev);
  for (const device of devices) {
    // The sparkline draws measured signals only: 127 ("not available") is no strength.
    const samples = (
      device.rssiSamples.length ? device.rssiSamples.map((s) => s.rssi) : [device.rssi]
    ).filter((rssi) => measuredRssi(rssi) !== null);
    const history = [...(prev.get(device.id)?.history ?? []), ...samples].slice(-HISTORY);
    next.set(device.id, { device, history });
  }
  return next;
}

export interface ScanFilter {
  /** Any UUID form; empty means any. */
  serviceUuid: string;
  name: string;
  minRssi: number | undefined;
}

export const NO_FILTER: ScanFilter = { serviceUuid: '', name: '', minRssi: undefined };

/**
 * Whether the board advertises the service, by the core's UUID rule (a 16-bit `180f` is the
 * 128-bit `0000180f-0000-1000-8000-00805f9b34fb`); an advertised value that is no UUID matches
 * nothing.
 */
function advertises(device: ScannedDevice, serviceUuid: string): boolean {
  return device.serviceUuids.some((uuid) => {
    try {
      return sameUuid(uuid, serviceUuid);
    } catch {
      return false;
    }
  });
}

export function matches(entry: ScanEntry, filter: ScanFilter): boolean {
  const { device } = entry;
  if (!meetsMinRssi(device.rssi, filter.minRssi)) return false;
  const name = filter.name.trim().toLowerCase();
  if (name && !(device.localName ?? '').toLowerCase().includes(name)) return false;
  if (filter.serviceUuid && !advertises(device, filter.serviceUuid)) return false;
  return true;
}

export type SortKey = 'name' | 'signal';

/**
 * By name, or strongest first; ties fall back to the address so rows never swap places between
 * two batches that left their keys equal.
 */
export function sortEntries(entries: ScanEntry[], key: SortKey): ScanEntry[] {
  const byAddress = (a: ScanEntry, b: ScanEntry) =>
    a.device.address.localeCompare(b.device.address);
  const compare =
    key === 'signal'
      ? (a: ScanEntry, b: ScanEntry) =>
          strongerFirst(a.device.rssi, b.device.rssi) || byAddress(a, b)
      : (a: ScanEntry, b: ScanEntry) =>
          (a.device.localName ?? '\uffff').localeCompare(
            b.device.localName ?? '\uffff',
            undefined,
            {
              numeric: true,
            },
          ) || byAddress(a, b);
  return entries.sort(compare);
}
