// A headless station for a CLI child process, as on a CI runner: no session bus (so no
// keychain), bonds kept under the key file DEVICEBENCH_BOND_KEY_FILE names (32 random bytes,
// mode 0600), so they outlive the process.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment for `runCli`; the key file is written into `dir`. */
export function headless(dir: string): NodeJS.ProcessEnv {
  const keyFile = join(dir, 'bond.key');
  writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });
  return { DEVICEBENCH_BOND_KEY_FILE: keyFile, DBUS_SESSION_BUS_ADDRESS: 'disabled:' };
}
