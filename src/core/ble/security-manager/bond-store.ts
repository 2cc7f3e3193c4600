// The station's bonds: the keys each board handed out (LTK with EDIV/Rand, IRK and identity
// address, CSRK), kept per station identity (the adapter's address) and board identity in the
// data folder's `bonds.bin`, encrypted at rest with AES-256-GCM under the bond key (bond-key.ts:
// DEVICEBENCH_BOND_KEY_FILE's, else the OS keychain's), beside the IRK each station identity
// hands out in pairing. With no key the bonds stay in memory for the run and nothing is written:
// a key beside its ciphertext would protect nothing (docs/decisions.md, "Pairing as a phone
// does"). Every change is made per bond under the file's lock, read again first, so the app and
// any number of commands pairing on one data folder keep each other's bonds; a file that cannot
// be read is named as damaged and nothing is kept beside it (docs/decisions/
// security-and-hardening.md, "One data folder, several processes", "A damaged bond store").
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { linkSecuritySchema, type LinkSecurity } from '../link-parameters';
import type { BondKeys, StationIdentityKeys } from './key-distribution';
import { resolvesPrivateAddress } from './crypto';
import { NO_ADDRESS } from '../hci/own-address';
import { bondKeyWords, type BondStorage, type BondSummary } from './bond-summary';
import { bondsForThisRunOnly, type BondKeySource } from './bond-key';
import { SEAL_OVERHEAD, seal, unseal } from '../../data-folder/sealed';
import {
  fileStamp,
  SECRET_FILE_MODE,
  withFileLockSync,
  writeFileAtomicSync,
} from '../../data-folder/shared-file';

/** The station's side of a bond: the adapter's identity address and its type. */
interface StationIdentity {
  address: string;
  type: 'public' | 'random';
}

/** A bond as the Security Manager uses it for one board. */
export interface StoredBond extends BondKeys {
  security: LinkSecurity;
}

/** One station's bonds, by noble's peripheral id (the board's address without colons). */
export interface BondLookup {
  find(peripheralId: string): StoredBond | undefined;
  keep(peripheralId: string, bond: StoredBond): void;
  /** What the station hands out in pairing: its identity address and IRK, when it has one. */
  identity?(): StationIdentityKeys | undefined;
}

const FILE = 'bonds.bin';
const hex = z.string().regex(/^([0-9a-f]{2})*$/, 'must be hex');

const bondSchema = z.object({
  /** The station's identity address ("aa:bb:…")... */
  station: z.string(),
  /** ...and its type: random for a static identity (docs/decisions.md, "One identity per dongle"). */
  stationType: z.enum(['public', 'random']).default('public'),
  /** The board's identity address, or the address it paired under when it gave none. */
  board: z.string(),
  ltk: hex,
  ediv: z.number().int().min(0).max(0xffff),
  rand: hex,
  irk: hex.optional(),
  identityAddress: z.object({ address: z.string(), type: z.enum(['public', 'random']) }).optional(),
  csrk: hex.optional(),
  security: linkSecuritySchema,
  bondedAt: z.string(),
});
export type BondRecord = z.infer<typeof bondSchema>;
/** The IRK one station identity hands out, made once and kept with its bonds. */
const ownIrkSchema = z.object({
  station: z.string(),
  stationType: z.enum(['public', 'random']),
  irk: hex.refine((h) => h.length === 32, 'must be 16 bytes of hex'),
});
type OwnIrk = z.infer<typeof ownIrkSchema>;
const fileSchema = z.object({
  version: z.literal(1),
  bonds: z.array(bondSchema),
  /** Absent in files written before the station handed out an identity. */
  ownIrks: z.array(ownIrkSchema).default([]),
});

type BondFile = z.output<typeof fileSchema>;

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('hex');
const bytes = (value: string) => Uint8Array.from(Buffer.from(value, 'hex'));

export class BondStore {
  private readonly changed: (() => void)[] = [];
  /** The file as this store last read or wrote it (see `refresh`). */
  private stamp: string | undefined;
  private readonly bonds: BondRecord[] = [];
  private readonly ownIrks: OwnIrk[] = [];
  private where: BondStorage;

  private constructor(
    private readonly file: string | undefined,
    /** The key the file is sealed with: none for bonds in memory. */
    readonly keySource: BondKeySource,
  ) {
    this.where =
      file && keySource.kind !== 'memory'
        ? { kind: 'encrypted', file, key: keyOf(keySource) }
        : { kind: 'memory', reason: memoryReason(keySource) };
    this.refresh();
  }

  /**
   * The bonds of the data folder `dir` under `source`'s key. A file that cannot be read with it
   * is a damaged store (`storage.kind === 'damaged'`): named, never overwritten, nothing kept.
   */
  static open(dir: string, source: BondKeySource): BondStore {
    return new BondStore(source.kind === 'memory' ? undefined : join(dir, FILE), source);
  }

  /** Bonds for this session only, and why. */
  static inMemory(reason: string): BondStore {
    return new BondStore(undefined, { kind: 'memory', reason });
  }

  /** Where the bonds are kept, as every front end says it. */
  get storage(): BondStorage {
    this.refresh();
    return this.where;
  }

  /**
   * Sets a damaged file aside (`bonds.bin.damaged-<time>`, kept for whoever wants to look) and
   * starts an empty store under the same key; the name it was set aside as.
   */
  resetDamaged(now: Date = new Date()): string {
    this.refresh();
    const where = this.where;
    if (where.kind !== 'damaged')
      throw new Error(`${this.file ?? FILE} is not damaged: nothing to reset`);
    return withFileLockSync(where.file, () => {
      const aside = `${where.file}.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(where.file, aside);
      this.bonds.splice(0);
      this.ownIrks.splice(0);
      this.write({ version: 1, bonds: [], ownIrks: [] });
      for (const listener of this.changed) listener();
      return aside;
    });
  }

  /** Every bond, or one station's. */
  list(station?: string): BondRecord[] {
    this.refresh();
    return this.bonds.filter((b) => station === undefined || b.station === station);
  }

  /** Every bond, or one station's, without its keys, as the front ends show it. */
  summaries(station?: string): BondSummary[] {
    return this.list(station).map(({ station, stationType, board, security, bondedAt }) => ({
      station,
      stationType,
      board,
      security,
      bondedAt,
    }));
  }

  /** Calls `listener` after every bond kept or forgotten: the app's windows list them anew. */
  onChange(listener: () => void): void {
    this.changed.push(listener);
  }

  /**
   * The station's bond with a board, by the address it uses now: its identity address, or a
   * resolvable private address one of the bonded IRKs resolves.
   */
  find(station: string, board: string, stationType?: 'public' | 'random'): BondRecord | undefined {
    const mine = this.list(station).filter(
      (b) => stationType === undefined || b.stationType === stationType,
    );
    return (
      mine.find((b) => b.board === board) ??
      mine.find((b) => b.irk !== undefined && resolvesPrivateAddress(bytes(b.irk), board))
    );
  }

  /**
   * The station's bonds as the Security Manager looks them up; `station` (the adapter's identity,
   * type and address) is read each time. Until the adapter has one, or when it is the all-zero
   * address of a controller without one, nothing is found and nothing kept: a bond with
   * 00:00:00:00:00:00 would name every such station at once.
   */
  lookup(
    station: () => StationIdentity | undefined,
    now: () => Date = () => new Date(),
  ): BondLookup {
    const address = (id: string) => id.match(/../g)?.join(':') ?? id;
    const usable = () => {
      const identity = station();
      return identity && identity.address !== NO_ADDRESS ? identity : undefined;
    };
    return {
      find: (id) => {
        const identity = usable();
        const bond = identity && this.find(identity.address, address(id), identity.type);
        return bond && { ...BondStore.keysOf(bond), security: bond.security };
      },
      keep: (id, { security, ...keys }) => {
        const identity = usable();
        if (identity)
          this.keep(identity.address, address(id), keys, security, now(), identity.type);
      },
      identity: () => {
        const identity = usable();
        return (
          identity && {
            irk: this.ownIrk(identity),
            identityAddress: { address: identity.address, type: identity.type },
          }
        );
      },
    };
  }

  /**
   * The IRK a station identity hands out in pairing (Vol 3, Part H, 3.6.4): made on its first
   * pairing and kept with the bonds, so every board bonded with it has the same one.
   */
  private ownIrk(station: StationIdentity): Uint8Array {
    this.refresh();
    const kept = this.ownIrks.find(
      (o) => o.station === station.address && o.stationType === station.type,
    );
    if (kept) return bytes(kept.irk);
    const made = {
      station: station.address,
      stationType: station.type,
      irk: randomBytes(16).toString('hex'),
    };
    let irk = made.irk;
    this.change((file) => {
      // Another process may have made this identity's IRK meanwhile: every board gets one.
      const first = file.ownIrks.find(
        (o) => o.station === made.station && o.stationType === made.stationType,
      );
      if (first) irk = first.irk;
      else file.ownIrks.push(made);
    });
    return bytes(irk);
  }

  /** Keeps a board's keys for this station, replacing an older bond with it. */
  keep(
    station: string,
    board: string,
    keys: BondKeys,
    security: LinkSecurity,
    now: Date,
    stationType: 'public' | 'random' = 'public',
  ): void {
    const identity = keys.identityAddress?.address ?? board;
    const bond: BondRecord = {
      station,
      stationType,
      board: identity,
      ltk: text(keys.ltk)!,
      ediv: keys.ediv,
      rand: text(keys.rand)!,
      irk: text(keys.irk),
      identityAddress: keys.identityAddress,
      csrk: text(keys.csrk),
      security,
      bondedAt: now.toISOString(),
    };
    const kept = this.change((file) => {
      remove(file.bonds, station, (b) => b.board === identity && b.stationType === stationType);
      file.bonds.push(bond);
    });
    if (kept) for (const listener of this.changed) listener();
  }

  /** Forgets one board's bond with the station, or all of the station's; the number forgotten. */
  forget(station: string, board?: string): number {
    let gone = 0;
    this.change((file) => {
      gone = remove(file.bonds, station, (b) => board === undefined || b.board === board);
    });
    if (gone) for (const listener of this.changed) listener();
    return gone;
  }

  /** A bond's keys as the Security Manager uses them. */
  static keysOf(bond: BondRecord): BondKeys {
    return {
      ltk: bytes(bond.ltk),
      ediv: bond.ediv,
      rand: bytes(bond.rand),
      irk: bond.irk === undefined ? undefined : bytes(bond.irk),
      identityAddress: bond.identityAddress,
      csrk: bond.csrk === undefined ? undefined : bytes(bond.csrk),
    };
  }

  /**
   * Makes one change to the bonds: in memory alone for a store without a file; under the file's
   * lock, on the file as it is now, for an encrypted one; nowhere for a damaged one, where it
   * would be kept silently beside the file nobody reads. Whether it was kept.
   */
  private change(edit: (file: BondFile) => void): boolean {
    const file = this.file;
    if (!file || this.where.kind === 'memory') {
      const mine = { version: 1 as const, bonds: this.bonds, ownIrks: this.ownIrks };
      edit(mine);
      return true;
    }
    return withFileLockSync(file, () => {
      this.refresh();
      if (this.where.kind === 'damaged') return false;
      const current = { version: 1 as const, bonds: [...this.bonds], ownIrks: [...this.ownIrks] };
      edit(current);
      this.write(current);
      this.bonds.splice(0, this.bonds.length, ...current.bonds);
      this.ownIrks.splice(0, this.ownIrks.length, ...current.ownIrks);
      return true;
    });
  }

  /** Seals `content` under the key and puts it in place: a unique temporary file, renamed. */
  private write(content: BondFile): void {
    if (!this.file || this.keySource.kind === 'memory') return;
    const sealed = seal(this.keySource.key, Buffer.from(JSON.stringify(content)));
    writeFileAtomicSync(this.file, sealed, SECRET_FILE_MODE);
    this.stamp = fileStamp(this.file);
    this.where = { kind: 'encrypted', file: this.file, key: keyOf(this.keySource) };
  }

  /**
   * Reads the file again when another process changed it since this store last read or wrote
   * it: `devicebench bonds forget` beside the app's BLE process, another run's pairing, a
   * reset. Without this the process kept its copy and wrote it back at its next save. A file
   * that no longer reads is damaged: nothing of it is kept in memory.
   */
  private refresh(): void {
    if (!this.file || this.keySource.kind === 'memory') return;
    const stamp = fileStamp(this.file);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    let read: BondFile;
    try {
      read =
        stamp === undefined
          ? { version: 1, bonds: [], ownIrks: [] }
          : decrypt(this.file, this.keySource);
      this.where = { kind: 'encrypted', file: this.file, key: keyOf(this.keySource) };
    } catch (err) {
      if (!(err instanceof DamagedBondsError)) throw err;
      read = { version: 1, bonds: [], ownIrks: [] };
      this.where = { kind: 'damaged', file: this.file, reason: err.message };
    }
    this.bonds.splice(0, this.bonds.length, ...read.bonds);
    this.ownIrks.splice(0, this.ownIrks.length, ...read.ownIrks);
    for (const listener of this.changed) listener();
  }
}

/** Takes `station`'s bonds that `match` out of `bonds`; how many. */
function remove(bonds: BondRecord[], station: string, match: (b: BondRecord) => boolean): number {
  const kept = bonds.filter((b) => b.station !== station || !match(b));
  const gone = bonds.length - kept.length;
  bonds.splice(0, bonds.length, ...kept);
  return gone;
}

function keyOf(source: Exclude<BondKeySource, { kind: 'memory' }>) {
  return source.kind === 'keyFile'
    ? { kind: 'keyFile' as const, file: source.file }
    : { kind: 'keychain' as const };
}

function memoryReason(source: BondKeySource): string {
  return bondsForThisRunOnly(
    source.kind === 'memory' ? source.reason : 'the BLE process was started without a data folder',
  );
}

/** Why a bond file cannot be read, in words; the store says it as damaged. */
class DamagedBondsError extends Error {
  override name = 'DamagedBondsError';
}

function decrypt(file: string, source: Exclude<BondKeySource, { kind: 'memory' }>): BondFile {
  const sealed = readFileSync(file);
  if (!sealed.length) throw new DamagedBondsError('the file is empty');
  if (sealed.length <= SEAL_OVERHEAD)
    throw new DamagedBondsError(`the file is cut short (${sealed.length} bytes)`);
  const plain = unseal(source.key, sealed);
  if (!plain)
    throw new DamagedBondsError(
      source.kind === 'keychain' && source.made
        ? 'the key to these bonds is not in the OS keychain (was the keychain reset?)'
        : `it does not open with the key from ${bondKeyWords(keyOf(source))}: damaged, cut short, or sealed with another key`,
    );
  let json: unknown;
  try {
    json = JSON.parse(plain.toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success)
    throw new DamagedBondsError('it opens, but holds no bonds DeviceBench reads');
  return parsed.data;
}
