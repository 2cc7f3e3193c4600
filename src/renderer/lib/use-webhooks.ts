// The app's webhook receiver as the UI sees it: its URL and what arrived, newest first, kept
// live from the `webhooks:received` event. Consoles that send webhooks embed the same list.
import { useCallback, useEffect, useState } from 'react';
import type { ReceivedWebhook } from '../../core/webhooks/schema';
import { useApi } from './api-context';
import { useLoad } from './use-load';

const KEEP = 500;

export function useReceivedWebhooks() {
  const api = useApi();
  const receiver = useLoad((api) => api.webhooks.getReceiver({}), []);
  const [live, setLive] = useState<ReceivedWebhook[]>([]);
  const [clearedAt, setClearedAt] = useState(0);

  useEffect(
    () => api.on('webhooks:received', (w) => setLive((prev) => [w, ...prev].slice(0, KEEP))),
    [api],
  );

  const loaded = receiver.value?.received ?? [];
  const newest = loaded[0]?.id ?? 0;
  const received = [...live.filter((w) => w.id > newest), ...loaded].filter(
    (w) => w.id > clearedAt,
  );

  const { reload } = receiver;
  const clear = useCallback(async () => {
    await api.webhooks.clearReceived({});
    setClearedAt((prev) => Math.max(prev, ...live.map((w) => w.id), newest));
    setLive([]);
    reload();
  }, [api, live, newest, reload]);

  return { url: receiver.value?.url, error: receiver.error, received, clear };
}
