// The global flags every command takes, checked before a command opens anything: a data folder
// that is a file, or an environment Settings does not have, is a usage error (exit 2) for every
// command, also for those that never read it (`scan`).
import {
  namesSettingsEnvironment,
  settingsEnvironment,
} from '../core/usecases/bench/station-platform';
import { SetupError } from '../core/usecases/errors';
import type { GlobalFlags } from './command';
import { UsageError } from './exit';
import { folderProblem } from './flags';

export async function checkGlobalFlags(flags: GlobalFlags): Promise<void> {
  // A data folder that does not exist yet is made on first use.
  const problem = folderProblem(flags.dataDir, true);
  if (problem) throw new UsageError('--data-dir', problem);
  if (!namesSettingsEnvironment(flags.env)) return;
  // Names only: the keychain is opened by the command that uses the environment's secrets.
  await settingsEnvironment(flags.dataDir, flags.env).catch((err: unknown) => {
    throw err instanceof SetupError ? new UsageError('--env', err.detail) : err;
  });
}
