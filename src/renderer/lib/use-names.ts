// The names and value formats of one scope (a trial product, or `bench`): the user's map from
// the app, the board file's names of the connected board, and the SIG's, resolved in that order
// (src/core/ble/names/resolver.ts). Renaming or picking a format saves at once.
import { useCallback, useMemo, useState, useEffect } from 'react';
import type { NameMap } from '../../core/usecases/bench/name-map';
import { nameKey, resolveName, type UuidNames } from '../../core/ble/names/resolver';
import type { AttributeKind } from '../../core/ble/names/sig';
import { valueFormatSchema, type ValueFormat } from '../../core/ble/values/value-format';
import { useApi } from './api-context';

const HEX_FORMAT: ValueFormat = valueFormatSchema.parse({ type: 'hex' });

export interface Names {
  scope: string;
  /** The name to show for a UUID, if anyone gave it one. */
  nameOf: (uuid: string, kinds?: readonly AttributeKind[]) => string | undefined;
  formatOf: (uuid: string) => ValueFormat;
  rename: (uuid: string, name: string) => Promise<void>;
  setFormat: (uuid: string, format: ValueFormat | null) => Promise<void>;
  error: unknown;
}

export function useNames(scope: string, board: UuidNames = {}): Names {
  const api = useApi();
  const [map, setMap] = useState<NameMap>({ names: {}, formats: {} });
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let current = true;
    api.names.get({ scope }).then(
      (loaded) => current && setMap(loaded),
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [api, scope]);

  const save = useCallback(async (change: () => Promise<NameMap>) => {
    try {
      setMap(await change());
      setError(undefined);
    } catch (err) {
      setError(err);
      throw err;
    }
  }, []);

  return useMemo(
    () => ({
      scope,
      nameOf: (uuid, kinds) => resolveName(uuid, { user: map.names, board, kinds })?.name,
      formatOf: (uuid) => {
        const key = nameKey(uuid);
        return (key !== undefined && map.formats[key]) || HEX_FORMAT;
      },
      rename: (uuid, name) => save(() => api.names.setName({ scope, uuid, name })),
      setFormat: (uuid, format) => save(() => api.names.setFormat({ scope, uuid, format })),
      error,
    }),
    [api, scope, map, board, save, error],
  );
}
