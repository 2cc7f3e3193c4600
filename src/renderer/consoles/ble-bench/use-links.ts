// The BLE process's links as this window shows them (docs/decisions.md, "The BLE process holds
// the links"): loaded with their logs when the page opens, then kept by `ble:links` (the list)
// and `ble:gattLog` (each log entry). A reload or a second window loads the same links; the
// entries a load and the events both bring are merged by their sequence number. Clear log
// clears the process's log, so it stays cleared in every window.
import { useCallback, useEffect, useState } from 'react';
import type { BoardLink, GattLogEntry } from '../../../core/ble/link-record';
import { useApi } from '../../lib/api-context';

export type { GattLogEntry };

/**
 * `entries` added to the logs, each log in order and each entry once; a `cleared` entry (Clear
 * log, in this window or another) drops itself and everything before it.
 */
function merged(
  logs: Readonly<Record<string, readonly GattLogEntry[]>>,
  entries: readonly GattLogEntry[],
): Record<string, readonly GattLogEntry[]> {
  const next = { ...logs };
  const clearedAt: Record<string, number> = {};
  for (const entry of entries) {
    if (entry.kind === 'cleared') {
      clearedAt[entry.connectionId] = Math.max(clearedAt[entry.connectionId] ?? 0, entry.seq);
      continue;
    }
    const log = next[entry.connectionId] ?? [];
    if (log.some((e) => e.seq === entry.seq)) continue;
    const last = log.at(-1);
    next[entry.connectionId] =
      last === undefined || last.seq < entry.seq
        ? [...log, entry]
        : [...log, entry].sort((a, b) => a.seq - b.seq);
  }
  for (const [connectionId, seq] of Object.entries(clearedAt))
    next[connectionId] = (next[connectionId] ?? []).filter((e) => e.seq > seq);
  return next;
}

export function useLinks() {
  const api = useApi();
  const [links, setLinks] = useState<readonly BoardLink[]>([]);
  const [logs, setLogs] = useState<Readonly<Record<string, readonly GattLogEntry[]>>>({});
  useEffect(() => {
    let listed = false;
    let gone = false;
    const offLinks = api.on('ble:links', (list) => {
      listed = true;
      setLinks(list);
      // A link that left the list takes its log with it.
      const ids = new Set(list.map((l) => l.connectionId));
      setLogs((prev) => Object.fromEntries(Object.entries(prev).filter(([id]) => ids.has(id))));
    });
    const offLog = api.on('ble:gattLog', (entry) => setLogs((prev) => merged(prev, [entry])));
    void api.ble
      .listLinks({})
      .then((loaded) => {
        if (gone) return;
        // A list that came as an event meanwhile is newer than this answer.
        if (!listed) setLinks(loaded.map(({ log: _log, ...link }) => link));
        setLogs((prev) =>
          merged(
            prev,
            loaded.flatMap((l) => l.log),
          ),
        );
      })
      .catch(() => undefined);
    return () => {
      gone = true;
      offLinks();
      offLog();
    };
  }, [api]);
  const logOf = useCallback(
    (connectionId: string): readonly GattLogEntry[] => logs[connectionId] ?? [],
    [logs],
  );
  /** Clears the log in the BLE process; its `cleared` entry empties it here and everywhere. */
  const clear = useCallback(
    (connectionId: string) =>
      // A link that went meanwhile took its log with it: nothing is left to clear.
      void api.ble.clearLog({ connectionId }).catch(() => undefined),
    [api],
  );
  return { links, logOf, clear };
}
