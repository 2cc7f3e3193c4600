// One name for a UUID wherever it is shown: the user's own name for it in this product wins,
// then the board file's, then the Bluetooth SIG's. A UUID nobody named has no name.
import { expandUuid, formatUuid, normalizeUuid, uuidProblem } from '../port';
import { sigName, type AttributeKind } from './sig';

type NameSource = 'user' | 'board' | 'sig';

export interface ResolvedName {
  name: string;
  source: NameSource;
}

/** Names keyed by any UUID form; looked up by the UUID's full 128-bit form. */
export type UuidNames = Readonly<Record<string, string>>;

/** The key every name map is looked up by: the full 128-bit UUID, lowercase, no dashes. */
export function nameKey(uuid: string): string | undefined {
  return uuidProblem(uuid) === undefined ? expandUuid(normalizeUuid(uuid)) : undefined;
}

function lookup(names: UuidNames | undefined, key: string): string | undefined {
  if (!names) return undefined;
  for (const [uuid, name] of Object.entries(names)) if (nameKey(uuid) === key) return name;
  return undefined;
}

export interface NameSources {
  /** The per-product map the user edits. */
  user?: UuidNames;
  /** Names the board file gave its services and characteristics. */
  board?: UuidNames;
  /** Which SIG tables to consult, in order. */
  kinds?: readonly AttributeKind[];
}

export function resolveName(uuid: string, sources: NameSources = {}): ResolvedName | undefined {
  const key = nameKey(uuid);
  if (key === undefined) return undefined;
  const user = lookup(sources.user, key);
  if (user) return { name: user, source: 'user' };
  const board = lookup(sources.board, key);
  if (board) return { name: board, source: 'board' };
  const sig = sigName(uuid, sources.kinds);
  return sig === undefined ? undefined : { name: sig, source: 'sig' };
}

/**
 * A BLE error's words with the characteristic called by its name: the connection says
 * "reading characteristic a3c80002-…", a person reads "reading Temperature (a3c80002-…)".
 */
export function withCharacteristicName(
  message: string,
  uuid: string,
  name: string | undefined,
): string {
  if (!name || uuidProblem(uuid) !== undefined) return message;
  const shown = formatUuid(uuid);
  return message.replaceAll(`characteristic ${shown}`, `${name} (${shown})`);
}

/** A message with every characteristic of `names` called by its name (`withCharacteristicName`). */
export function withCharacteristicNames(message: string, names: UuidNames): string {
  return Object.entries(names).reduce(
    (named, [uuid, name]) => withCharacteristicName(named, uuid, name),
    message,
  );
}
