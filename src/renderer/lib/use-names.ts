// The names and value formats of one scope (a trial product, or `bench`): the user's map from
// the app, the board file's names of the connected board, and the SIG's, resolved in that order
// (src/core/ble/names/resolver.ts). Renaming or picking a format saves at once; a picked format
// shows at once too; the changes are sent one at a time in the order made, and of their answers
// only the newest request's is kept, so a change made before the last one was answered is not
// lost (format, then scale, then unit).
import { useCallback, useMemo, useRef, useState, useEffect } from 'react';
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
  /** The newest request: an answer to an older one is stale (every answer is the whole map). */
  const latest = useRef(0);
  useEffect(() => {
    let current = true;
    const mine = ++latest.current;
    api.names.get({ scope }).then(
      (loaded) => current && mine === latest.current && setMap(loaded),
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [api, scope]);

  /**
   * Changes go to the station one after another, in the order they were made: each carries a
   * whole format, so an older one arriving last would undo a newer one (a unit picked while the
   * scale's request was still under way, lost under load in e2e `names-adv`).
   */
  const sending = useRef<Promise<unknown>>(Promise.resolve());
  const save = useCallback(
    async (change: () => Promise<NameMap>, shown?: (map: NameMap) => NameMap) => {
      const mine = ++latest.current;
      if (shown) setMap(shown);
      const sent = sending.current.then(change);
      sending.current = sent.catch(() => undefined);
      try {
        const saved = await sent;
        if (mine === latest.current) {
          setMap(saved);
          setError(undefined);
        }
      } catch (err) {
        setError(err);
        // What the store holds, not what was shown before it refused.
        if (mine === latest.current) api.names.get({ scope }).then(setMap, () => undefined);
        throw err;
      }
    },
    [api, scope],
  );

  return useMemo(
    () => ({
      scope,
      nameOf: (uuid, kinds) => resolveName(uuid, { user: map.names, board, kinds })?.name,
      formatOf: (uuid) => {
        const key = nameKey(uuid);
        return (key !== undefined && map.formats[key]) || HEX_FORMAT;
      },
      rename: (uuid, name) => save(() => api.names.setName({ scope, uuid, name })),
      setFormat: (uuid, format) =>
        save(
          () => api.names.setFormat({ scope, uuid, format }),
          (shown) => withFormat(shown, uuid, format),
        ),
      error,
    }),
    [api, scope, map, board, save, error],
  );
}

/** The map with one characteristic's format set, or removed with null. */
function withFormat(map: NameMap, uuid: string, format: ValueFormat | null): NameMap {
  const key = nameKey(uuid);
  if (key === undefined) return map;
  const formats = { ...map.formats };
  if (format) formats[key] = format;
  else delete formats[key];
  return { ...map, formats };
}
