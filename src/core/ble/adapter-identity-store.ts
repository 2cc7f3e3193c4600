// The static random addresses the station generated for adapters that have no address of their
// own, kept in the data folder's `adapter-identities.json` so each adapter keeps its identity
// across reopens and restarts, and a board's bond with it stays good (docs/decisions.md, "One
// identity per dongle"). Keyed by what tells the adapters apart: the adapter spec and the
// controller's manufacturer. Nothing secret: the address is on the air in every scan request.
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, updateJsonFile } from '../json-file';

/** Where generated identities are kept; `kept` answers what `keep` stored for the key. */
export interface IdentityKeeper {
  kept(key: string): string | undefined;
  /** Keeps `address` for the key, unless another process kept one first: the address kept. */
  keep(key: string, address: string): Promise<string>;
}

const FILE = 'adapter-identities.json';

const fileSchema = z.object({
  version: z.literal(1),
  adapters: z.record(
    z.string(),
    z.object({
      address: z.string().regex(/^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$/),
      generatedAt: z.string(),
    }),
  ),
});
type IdentityFile = z.infer<typeof fileSchema>;

/** What identifies an adapter without an address of its own: its spec and its manufacturer. */
export function adapterKey(spec: string, manufacturer: number | undefined): string {
  const company =
    manufacturer === undefined ? 'unknown' : manufacturer.toString(16).padStart(4, '0');
  return `${spec} · manufacturer 0x${company}`;
}

export class AdapterIdentityFile implements IdentityKeeper {
  private constructor(
    readonly file: string,
    private content: IdentityFile,
  ) {}

  /**
   * The identities kept in data folder `dir`. A file that does not read as one is set aside
   * (renamed, never overwritten) and the station starts with none.
   */
  static async open(dir: string): Promise<AdapterIdentityFile> {
    const file = join(dir, FILE);
    const { value } = await readJsonFile(file, fileSchema, { version: 1, adapters: {} });
    return new AdapterIdentityFile(file, value);
  }

  kept(key: string): string | undefined {
    return this.content.adapters[key]?.address;
  }

  /**
   * Under the file's lock, read again: the app and a command that met one new adapter at once
   * keep the first one's identity, never two, and the other adapters' stay as they were.
   */
  async keep(key: string, address: string): Promise<string> {
    this.content = await updateJsonFile(
      this.file,
      fileSchema,
      () => ({ version: 1 as const, adapters: {} }),
      (file) => {
        file.adapters[key] ??= { address, generatedAt: new Date().toISOString() };
      },
    );
    return this.content.adapters[key]?.address ?? address;
  }
}
