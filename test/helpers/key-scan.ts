// Looks for keys in files as bytes: each key raw and byte-reversed (SMP and HCI carry keys least
// significant octet first; a hex dump or a JSON file may hold either order), as hex in both
// cases, and as base64, in every file under a folder.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every way a key's bytes could be written down. */
function keyForms(key: Uint8Array): { form: string; bytes: Buffer }[] {
  const forms: { form: string; bytes: Buffer }[] = [];
  for (const [order, bytes] of [
    ['', Buffer.from(key)],
    ['reversed ', Buffer.from(key).reverse()],
  ] as const) {
    const hex = bytes.toString('hex');
    forms.push(
      { form: `${order}bytes`, bytes },
      { form: `${order}hex`, bytes: Buffer.from(hex, 'latin1') },
      { form: `${order}HEX`, bytes: Buffer.from(hex.toUpperCase(), 'latin1') },
      { form: `${order}base64`, bytes: Buffer.from(bytes.toString('base64'), 'latin1') },
    );
  }
  return forms;
}

/** The files under `dir`, every depth. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Where a key is found, in words (`LTK as hex in traces/…`), paths relative to `root`; empty
 * when none of the files holds any key in any form.
 */
export function keysFound(
  files: string[],
  keys: Record<string, Uint8Array>,
  root: string,
): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const [name, key] of Object.entries(keys))
      for (const { form, bytes: pattern } of keyForms(key))
        if (bytes.includes(pattern)) found.push(`${name} as ${form} in ${relative(root, file)}`);
  }
  return found;
}
