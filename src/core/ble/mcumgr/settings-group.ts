// The settings group (docs/mcumgr/settings.md): Zephyr settings keys read, written, deleted,
// committed and saved to flash. Read and write share command 0, load and save command 3.
import { z } from 'zod';
import { parseAnswer } from './answer';
import { McumgrError, type McumgrClient } from './client';
import { generalResult, groupResult, MCUMGR_COMMAND, MCUMGR_GROUP } from './groups';

const group = MCUMGR_GROUP.settings;
const ids = MCUMGR_COMMAND.settings;

/** Zephyr's settings names: path segments joined by "/", at most 255 bytes in all. */
const SETTINGS_KEY_RULE = 'a settings key is 1–255 characters of path segments joined by "/"';

/** The board answered that a key is longer than it takes. */
export function isKeyTooLong(error: McumgrError): boolean {
  return (
    error.result?.group === group && error.result.rc === groupResult('settings', 'key too long')
  );
}

export function settingsKeyProblem(key: string): string | undefined {
  if (
    key.length === 0 ||
    key.length > 255 ||
    key.startsWith('/') ||
    key.endsWith('/') ||
    key.includes('//')
  )
    return SETTINGS_KEY_RULE;
  return undefined;
}

export async function readSetting(client: McumgrClient, key: string): Promise<Uint8Array> {
  const answer = await client.request({
    op: 'read',
    group,
    command: ids.readWrite,
    body: { name: key },
  });
  return parseAnswer('settings read', z.object({ val: z.instanceof(Uint8Array) }), answer).val;
}

/** A key's value, or undefined when the board has no such key (either header version). */
export async function readSettingIfSet(
  client: McumgrClient,
  key: string,
): Promise<Uint8Array | undefined> {
  try {
    return await readSetting(client, key);
  } catch (error) {
    if (!(error instanceof McumgrError) || error.failure !== 'board' || !error.result) throw error;
    const { group: answered, rc } = error.result;
    const notFound =
      answered === group
        ? rc === groupResult('settings', 'key not found')
        : answered === undefined && rc === generalResult('no such entry');
    if (notFound) return undefined;
    throw error;
  }
}

export async function writeSetting(
  client: McumgrClient,
  key: string,
  value: Uint8Array,
): Promise<void> {
  await client.request({
    op: 'write',
    group,
    command: ids.readWrite,
    body: { name: key, val: value },
  });
}

export async function deleteSetting(client: McumgrClient, key: string): Promise<void> {
  await client.request({ op: 'write', group, command: ids.delete, body: { name: key } });
}

/** Applies written values to the running firmware (its handlers' commit). */
export async function commitSettings(client: McumgrClient): Promise<void> {
  await client.request({ op: 'write', group, command: ids.commit });
}

/** Writes every setting to flash, so it survives a reset. */
export async function saveSettings(client: McumgrClient): Promise<void> {
  await client.request({ op: 'write', group, command: ids.loadSave });
}
