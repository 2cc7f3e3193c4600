// Whether the station's HCI traces keep the link keys: the data folder's `trace-settings.json`,
// which the app's BLE process and every `devicebench` command that opens the radio read, and
// the app's "Keep link keys" box writes. Off unless the user turns it on: a trace with keys
// lets anyone who has it decrypt the link (docs/decisions/ble-and-hci.md, "Keys in traces").
import { join } from 'node:path';
import { traceSettingsSchema, type TraceSettings } from '../../ble/hci/trace-settings';
import { readJsonFile, writeJsonFile } from '../../json-file';

const traceSettingsFile = (dataDir: string) => join(dataDir, 'trace-settings.json');

/** The data folder's choice; a file that cannot be read is set aside and the default holds. */
export async function readTraceSettings(dataDir: string): Promise<TraceSettings> {
  const { value } = await readJsonFile(traceSettingsFile(dataDir), traceSettingsSchema, {
    keepKeys: false,
  });
  return value;
}

export async function saveTraceSettings(
  dataDir: string,
  settings: TraceSettings,
): Promise<TraceSettings> {
  await writeJsonFile(traceSettingsFile(dataDir), settings);
  return settings;
}
