// The names and value formats the user gave characteristics, per trial product (or `bench` for
// boards of no product), kept in the data folder as `names.json`. Keys are the full 128-bit
// UUID, so a name typed against "2a19" and one against its 128-bit form are the same entry.
import { join } from 'node:path';
import { z } from 'zod';
import { nameKey } from '../../ble/names/resolver';
import { keyedRecord, keyedRecordSchema } from '../../keyed-record';
import type { ValueFormat } from '../../ble/values/value-format';
import { nameMapSchema, type NameMap } from './name-map';
import { SetupError } from '../errors';
import { readJsonFile, updateJsonFile } from '../../json-file';

const fileSchema = z.object({ scopes: keyedRecordSchema(nameMapSchema) });
type NamesFile = z.output<typeof fileSchema>;

const empty = (): NameMap => ({ names: {}, formats: {} });

/** The scope of boards of no product, e.g. a blank board before it is provisioned. */
const BENCH_SCOPE = 'bench';

/**
 * What a scope shows: its own entries over the bench's. A board given names and formats while
 * blank keeps them once provisioning makes it a product's board (docs/decisions.md "Value
 * formats that survive provisioning").
 */
function view(file: NamesFile, scope: string): NameMap {
  const own = file.scopes[scope] ?? empty();
  if (scope === BENCH_SCOPE) return own;
  const bench = file.scopes[BENCH_SCOPE] ?? empty();
  return {
    names: { ...bench.names, ...own.names },
    formats: { ...bench.formats, ...own.formats },
  };
}

export class NameStore {
  /** One change at a time, so two quick renames never lose one another. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataDir: string) {}

  private get file(): string {
    return join(this.dataDir, 'names.json');
  }

  private async read(): Promise<NamesFile> {
    return (await readJsonFile(this.file, fileSchema, { scopes: keyedRecord<NameMap>() })).value;
  }

  async get(scope: string): Promise<NameMap> {
    await this.chain;
    return view(await this.read(), scope);
  }

  setName(scope: string, uuid: string, name: string): Promise<NameMap> {
    return this.change(scope, uuid, (map, key) => {
      if (name === '') delete map.names[key];
      else map.names[key] = name;
    });
  }

  setFormat(scope: string, uuid: string, format: ValueFormat | null): Promise<NameMap> {
    return this.change(scope, uuid, (map, key) => {
      if (format === null) delete map.formats[key];
      else map.formats[key] = format;
    });
  }

  private change(
    scope: string,
    uuid: string,
    edit: (map: NameMap, key: string) => void,
  ): Promise<NameMap> {
    const key = nameKey(uuid);
    if (key === undefined) throw new SetupError('uuid', 'must be a UUID (16-, 32- or 128-bit hex)');
    // Per entry, under the file's lock: a name the app or another command gave meanwhile stays.
    const run = this.chain.then(async () => {
      const file = await updateJsonFile(
        this.file,
        fileSchema,
        () => ({ scopes: keyedRecord<NameMap>() }),
        (file) => {
          const map = file.scopes[scope] ?? empty();
          edit(map, key);
          file.scopes[scope] = map;
        },
      );
      return view(file, scope);
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}
