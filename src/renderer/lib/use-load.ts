// "Load this operation": how a page reads from the API. The operation is called once, again
// when what it reads changes, and on reload(); a failure is shown with LoadFailure.
import { useCallback, type DependencyList } from 'react';
import type { DeviceBenchApi } from '../../core/app/api';
import { useApi } from './api-context';
import { useResource, type Resource } from './use-resource';

/**
 * `deps` are what `load` reads besides the API; react-hooks/exhaustive-deps checks them at the
 * call site (eslint.config.js names this hook).
 */
export function useLoad<T>(
  load: (api: DeviceBenchApi) => Promise<T>,
  deps: DependencyList,
): Resource<T> {
  const api = useApi();
  // The deps list is the caller's, spread after the API; exhaustive-deps checks it at the call site.
  // eslint-disable-next-line react-hooks/exhaustive-deps, react-hooks/use-memo
  const stable = useCallback(() => load(api), [api, ...deps]);
  return useResource(stable);
}
