// Loads something once per `load` identity and on reload(), keeping the last value while a
// reload is in flight so tables don't blink. `load` must be stable (useCallback).
import { useCallback, useEffect, useMemo, useState } from 'react';

export interface Resource<T> {
  value: T | undefined;
  error: unknown;
  /** True until the current request answers (also during a reload). */
  loading: boolean;
  reload: () => void;
}

interface Settled<T> {
  request: object;
  value: T | undefined;
  error: unknown;
}

export function useResource<T>(load: () => Promise<T>): Resource<T> {
  const [version, setVersion] = useState(0);
  // A fresh object per request: state settled for an older one means we are still loading.
  const request = useMemo(() => ({ load, version }), [load, version]);
  const [settled, setSettled] = useState<Settled<T> | undefined>(undefined);

  useEffect(() => {
    let current = true;
    request.load().then(
      (value) => current && setSettled({ request, value, error: undefined }),
      (error: unknown) => current && setSettled((prev) => ({ request, value: prev?.value, error })),
    );
    return () => {
      current = false;
    };
  }, [request]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return {
    value: settled?.value,
    error: settled?.request === request ? settled.error : undefined,
    loading: settled?.request !== request,
    reload,
  };
}
