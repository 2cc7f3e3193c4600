// Every GATT operation the app reports on `ble:gattLog`, newest last, bounded; the explorer
// shows the entries of its own connection. Listening from the page (not the explorer) keeps
// the connect and discover entries that arrive before `ble:connect` answers with the id.
import { useCallback, useEffect, useState } from 'react';
import type { z } from 'zod';
import type { gattLogEntrySchema } from '../../../core/app/contracts/ble';
import { useApi } from '../../lib/api-context';

export type GattLogEntry = z.infer<typeof gattLogEntrySchema>;

const KEEP = 1000;

export function useGattLog() {
  const api = useApi();
  const [entries, setEntries] = useState<readonly GattLogEntry[]>([]);
  useEffect(
    () => api.on('ble:gattLog', (entry) => setEntries((prev) => [...prev, entry].slice(-KEEP))),
    [api],
  );
  const clear = useCallback(
    (connectionId: string) =>
      setEntries((prev) => prev.filter((e) => e.connectionId !== connectionId)),
    [],
  );
  return { entries, clear };
}
