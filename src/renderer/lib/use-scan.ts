// A scan that runs while `enabled`: started on the app's adapter, stopped when disabled or
// unmounted, and restarted when `restartKey` changes (a new mode or BLE process loses scans).
// Batches arrive every ~200 ms and are folded into one map per batch, not per advertisement.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from './api-context';
import { mergeBatch, type ScanMap } from './scan-model';

export interface Scan {
  entries: ScanMap;
  scanning: boolean;
  error: unknown;
  /** Time of the newest batch, by the app's clock: what "stale" is measured against. */
  lastBatchAt: number | undefined;
  /** Advertisements folded into the newest batch. */
  advertisements: number;
  clear: () => void;
}

export function useScan(enabled: boolean, restartKey: string): Scan {
  const api = useApi();
  const [entries, setEntries] = useState<ScanMap>(() => new Map());
  const [scanning, setScanning] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [last, setLast] = useState<{ at?: number; advertisements: number }>({
    advertisements: 0,
  });
  const scanId = useRef<string | undefined>(undefined);

  useEffect(
    () =>
      api.on('ble:scanBatch', (batch) => {
        if (batch.scanId !== scanId.current) return;
        setEntries((prev) => mergeBatch(prev, batch.devices, batch.at));
        setLast({ at: batch.at, advertisements: batch.advertisements });
      }),
    [api],
  );

  // Rows heard by another mode or BLE process name boards that process knew: gone with it
  // (reset while rendering, so no frame shows them).
  const [heardBy, setHeardBy] = useState(restartKey);
  if (heardBy !== restartKey) {
    setHeardBy(restartKey);
    setEntries(new Map());
    setLast({ advertisements: 0 });
  }

  useEffect(() => {
    if (!enabled) return;
    let active = true;
    let started: string | undefined;
    api.ble.startScan({}).then(
      ({ scanId: id }) => {
        started = id;
        if (!active) {
          void api.ble.stopScan({ scanId: id }).catch(() => undefined);
          return;
        }
        scanId.current = id;
        setScanning(true);
        setError(undefined);
      },
      (err: unknown) => active && setError(err),
    );
    return () => {
      active = false;
      setScanning(false);
      if (started === undefined) return;
      if (scanId.current === started) scanId.current = undefined;
      // The scan may already be gone with a restarted BLE process; nothing to report then.
      void api.ble.stopScan({ scanId: started }).catch(() => undefined);
    };
  }, [api, enabled, restartKey]);

  const clear = useCallback(() => setEntries(new Map()), []);
  return {
    entries,
    scanning,
    error,
    lastBatchAt: last.at,
    advertisements: last.advertisements,
    clear,
  };
}
