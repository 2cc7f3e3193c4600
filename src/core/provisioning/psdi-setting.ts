// The PSDI a stock Zephyr board holds in its settings (docs/provisioning-protocol.md, "MCUmgr
// settings profiles"), read the same way before a run and by reconcile. A PSDI is never empty:
// "key not found" (what Zephyr's settings group answers for a key with no value) and an empty
// value (what a handler that answers an unset key with zero bytes gives) both mean no PSDI yet.
import type { McumgrClient } from '../ble/mcumgr/client';
import { readSettingIfSet } from '../ble/mcumgr/settings-group';
import type { McumgrSettingsProfile } from '../ble/provisioning-profile';

export async function readPsdiSetting(
  client: McumgrClient,
  profile: Pick<McumgrSettingsProfile, 'keys'>,
): Promise<string | undefined> {
  const bytes = await readSettingIfSet(client, profile.keys.psdi);
  return bytes?.length ? new TextDecoder().decode(bytes) : undefined;
}
