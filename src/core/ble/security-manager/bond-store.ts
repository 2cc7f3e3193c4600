// The station's bonds: the keys each board handed out (LTK with EDIV/Rand, IRK and identity
// address, CSRK), kept per station identity (the adapter's address) and board identity in the
// data folder's `bonds.bin`, encrypted at rest with AES-256-GCM under a key that lives in the OS
// keychain, beside the IRK each station identity hands out in pairing. With no keychain the bonds
// stay in memory for the session and nothing is written: a key beside its ciphertext would
// protect nothing (docs/decisions.md, "Pairing as a phone does").
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { linkSecuritySchema, type LinkSecurity } from '../link-parameters';
import type { CredentialStore, KeychainStatus } from '../../secrets/credential-store';
import type { BondKeys, StationIdentityKeys } from './key-distribution';
import { resolvesPrivateAddress } from './crypto';
import { NO_ADDRESS } from '../hci/own-address';
import type { BondStorage, BondSummary } from './bond-summary';

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

const KEY_ACCOUNT = 'ble-bond-key';
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

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('hex');
const bytes = (value: string) => Uint8Array.from(Buffer.from(value, 'hex'));

export class BondStore {
  private readonly changed: (() => void)[] = [];
  /** The file as this store last read or wrote it (see `refresh`). */
  private stamp: string | undefined;

  private constructor(
    private readonly file: string | undefined,
    private readonly key: Buffer | undefined,
    private readonly bonds: BondRecord[],
    readonly storage: BondStorage,
    private readonly ownIrks: OwnIrk[] = [],
  ) {
    if (file) this.stamp = fileStamp(file);
  }

  /**
   * The bonds of the data folder `dir`. With a keychain (`status.kind === 'keychain'`) the key
   * is read from it, or made on first use; a file that cannot be decrypted is refused by name,
   * never overwritten.
   */
  static async open(
    dir: string,
    credentials: CredentialStore,
    status: KeychainStatus,
  ): Promise<BondStore> {
    if (status.kind === 'memory') return BondStore.inMemory(status.reason);
    const file = join(dir, FILE);
    let encoded = await credentials.get(KEY_ACCOUNT);
    if (!encoded) {
      if (existsSync(file))
        throw new Error(
          `${file}: the key to these bonds is not in the OS keychain (was the keychain reset?); move the file away to start with no bonds`,
        );
      encoded = randomBytes(32).toString('base64');
      await credentials.set(KEY_ACCOUNT, encoded);
    }
    const key = Buffer.from(encoded, 'base64');
    const { bonds, ownIrks } = existsSync(file) ? decrypt(file, key) : { bonds: [], ownIrks: [] };
    return new BondStore(file, key, bonds, { kind: 'encrypted', file }, ownIrks);
  }

  /** Bonds for this session only, and why. */
  static inMemory(reason: string): BondStore {
    return new BondStore(undefined, undefined, [], {
      kind: 'memory',
      reason: `bonds are kept in memory until DeviceBench closes: ${reason}`,
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
    const irk = randomBytes(16);
    this.ownIrks.push({
      station: station.address,
      stationType: station.type,
      irk: irk.toString('hex'),
    });
    this.save();
    return Uint8Array.from(irk);
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
    this.refresh();
    const identity = keys.identityAddress?.address ?? board;
    this.remove(station, (b) => b.board === identity && b.stationType === stationType);
    this.bonds.push({
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
    });
    this.save();
    for (const listener of this.changed) listener();
  }

  /** Forgets one board's bond with the station, or all of the station's; the number forgotten. */
  forget(station: string, board?: string): number {
    this.refresh();
    const gone = this.remove(station, (b) => board === undefined || b.board === board);
    if (!gone) return 0;
    this.save();
    for (const listener of this.changed) listener();
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

  private remove(station: string, match: (b: BondRecord) => boolean): number {
    const before = this.bonds.length;
    const kept = this.bonds.filter((b) => b.station !== station || !match(b));
    this.bonds.splice(0, this.bonds.length, ...kept);
    return before - kept.length;
  }

  private save(): void {
    if (!this.file || !this.key) return;
    const plain = Buffer.from(
      JSON.stringify({ version: 1, bonds: this.bonds, ownIrks: this.ownIrks }),
    );
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]);
    const temp = `${this.file}.tmp`;
    // The data folder may not exist yet on a first pairing.
    mkdirSync(dirname(this.file), { recursive: true });
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, sealed);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    this.stamp = fileStamp(this.file);
  }

  /**
   * Reads the file again when another process changed it since this store last read or wrote
   * it: `devicebench bonds forget` beside the app's BLE process. Without this the process kept
   * its copy, still encrypted with a forgotten bond, and wrote it back at its next save.
   */
  private refresh(): void {
    if (!this.file || !this.key) return;
    const stamp = fileStamp(this.file);
    if (stamp === this.stamp) return;
    const read = stamp === undefined ? { bonds: [], ownIrks: [] } : decrypt(this.file, this.key);
    this.bonds.splice(0, this.bonds.length, ...read.bonds);
    this.ownIrks.splice(0, this.ownIrks.length, ...read.ownIrks);
    this.stamp = stamp;
    for (const listener of this.changed) listener();
  }
}

/** What tells one version of the file from another: a save renames a new file into place. */
function fileStamp(file: string): string | undefined {
  try {
    const { ino, size, mtimeMs } = statSync(file);
    return `${ino}:${size}:${mtimeMs}`;
  } catch {
    return undefined;
  }
}

function decrypt(file: string, key: Buffer): { bonds: BondRecord[]; ownIrks: OwnIrk[] } {
  const sealed = readFileSync(file);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
    return fileSchema.parse(JSON.parse(plain.toString('utf8')));
  } catch {
    throw new Error(
      `${file}: the bonds cannot be read with the key in the OS keychain (damaged, or another keychain's); move the file away to start with no bonds`,
    );
  }
}
