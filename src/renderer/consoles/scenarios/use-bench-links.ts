// The boards the BLE bench holds a link to now: a board connected there advertises no more, so
// the dry run's board picker cannot list it; it says which and why instead (issue 45).
import { useEffect, useState } from 'react';
import type { BoardLink } from '../../../core/ble/link-record';
import { useApi } from '../../lib/api-context';

export function useBenchLinks(): BoardLink[] {
  const api = useApi();
  const [links, setLinks] = useState<BoardLink[]>([]);
  useEffect(() => {
    let live = true;
    // Without the list (the BLE process is not up), the picker only says less.
    api.ble
      .listLinks({})
      .then((loaded) => live && setLinks(loaded))
      .catch(() => undefined);
    const off = api.on('ble:links', setLinks);
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return links.filter((l) => l.state === 'connected' && l.user === 'explorer');
}
