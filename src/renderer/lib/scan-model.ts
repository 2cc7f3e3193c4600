// The scan list's model: boards keyed by id, each with its latest advertisement and a short
// RSSI history, merged batch by batch so a row object changes only when its board was heard.
// A board with privacy is one row across its private addresses where a bond resolves them, and
// a row at a private address no longer heard ages out (docs/decisions/app-and-ui.md, "One row
// per board across its private addresses").
import type { ScannedDevice } from '../../core/usecases/bench/bench-schema';
import { sameUuid } from '../../core/ble/port';
import { isResolvablePrivate } from '../../core/ble/private-address';
import { measuredRssi, meetsMinRssi, strongerFirst } from '../../core/ble/rssi';

/** RSSI samples kept per board for its sparkline. */
export const HISTORY = 60;

/**
 * A row at a resolvable private address not heard for this long is gone: a board that took a
 * new one never advertises under the old again (one connected does not advertise either, and
 * comes back under its address when it lets go).
 */
export const PRIVATE_ROW_AGE_OUT_MS = 60_000;

export interface ScanEntry {
  device: ScannedDevice;
  history: readonly number[];
}

export type ScanMap = ReadonlyMap<string, ScanEntry>;

/** `prev` with the batch heard at `at` (ms since the epoch) folded in. */
export function mergeBatch(prev: ScanMap, devices: readonly ScannedDevice[], at: number): ScanMap {
  if (devices.length === 0) return prev;
  const next = new Map(prev);
  for (const device of devices) {
    // The sparkline draws measured signals only: 127 ("not available") is no strength.
    const samples = (
      device.rssiSamples.length ? device.rssiSamples.map((s) => s.rssi) : [device.rssi]
    ).filter((rssi) => measuredRssi(rssi) !== null);
    // The board's rows at its earlier private addresses become this one, their signal kept.
    const earlier = (device.formerIds ?? []).flatMap((id) => {
      const row = next.get(id);
      next.delete(id);
      return row ? [...row.history] : [];
    });
    const own = next.get(device.id)?.history ?? earlier;
    next.set(device.id, { device, history: [...own, ...samples].slice(-HISTORY) });
  }
  for (const [id, { device }] of next)
    if (isResolvablePrivate(device.address) && at - device.lastSeen > PRIVATE_ROW_AGE_OUT_MS)
      next.delete(id);
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
