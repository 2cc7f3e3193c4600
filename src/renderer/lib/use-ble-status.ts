// The adapter and BLE process status: loaded once, then kept current by `ble:status` events
// (mode switches, adapter state changes, crashes and restarts of the BLE process).
import { useEffect, useState } from 'react';
import type { BleStatus } from '../../core/usecases/bench/bench-schema';
import { useApi } from './api-context';
import { useLoad } from './use-load';

export function useBleStatus() {
  const api = useApi();
  const loaded = useLoad((api) => api.ble.getStatus({}), []);
  const [live, setLive] = useState<BleStatus>();
  useEffect(() => api.on('ble:status', setLive), [api]);
  return {
    status: live ?? loaded.value,
    error: live ? undefined : loaded.error,
    reload: loaded.reload,
    /** An operation that answers a status (setAdapters, restartHost) counts as the newest. */
    set: setLive,
  };
}

/**
 * Changes whenever a scan must start again: another BLE process (its scans and links are gone;
 * the simulated bench is reloaded into it) or another adapter list (a running scan does not
 * hear through an adapter added after it started; links stay, docs/decisions.md "Adapters
 * change without a restart").
 */
export function scanRestartKey(status: BleStatus | undefined): string {
  if (!status) return '';
  const adapters = status.adapters.map((a) => a.spec).join(',');
  return `${adapters}:${status.host.pid ?? ''}:${status.host.crashes}`;
}
