// The global flags every command takes, checked before a command opens anything: a data folder
// that is a file, or an environment Settings does not have, is a usage error (exit 2) for every
// command, also for those that never read it (`scan`).
import { Environments } from '../core/usecases/environments';
import { MemoryCredentialStore } from '../core/secrets/credential-store';
import type { GlobalFlags } from './command';
import { UsageError } from './exit';
import { folderProblem } from './flags';

export async function checkGlobalFlags(flags: GlobalFlags): Promise<void> {
  // A data folder that does not exist yet is made on first use.
  const problem = folderProblem(flags.dataDir, true);
  if (problem) throw new UsageError('--data-dir', problem);
  if (flags.env === undefined || flags.env === 'Local emulator') return;
  // Names only: the keychain is opened by the command that uses the environment's secrets.
  const envs = await Environments.open(flags.dataDir, new MemoryCredentialStore(), () => undefined);
  const { environments } = await envs.list();
  if (
    !environments.some((e) => e.kind === 'custom' && (e.name === flags.env || e.id === flags.env))
  )
    throw new UsageError(
      '--env',
      `no environment "${flags.env}" in Settings (there: ${environments.map((e) => `"${e.name}"`).join(', ')})`,
    );
}
