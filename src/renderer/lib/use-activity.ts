// The emulator's live request feed, as the status bar and the Emulator page show it.
import { useEffect, useState } from 'react';
import type { Activity } from '../../core/emulator/schema';
import { useApi } from './api-context';

export function useActivityFeed(onActivity?: (activity: Activity) => void) {
  const api = useApi();
  const [feed, setFeed] = useState<{ count: number; last: Activity | undefined }>({
    count: 0,
    last: undefined,
  });

  useEffect(
    () =>
      api.on('emulator:activity', (activity) => {
        setFeed((prev) => ({ count: prev.count + 1, last: activity }));
        onActivity?.(activity);
      }),
    [api, onActivity],
  );
  return feed;
}
