// Whose a failure is to put right, one list for every front end that sorts them so: the
// request's (a flag, a file or one of its fields: the CLI exits 2) or the station's (the
// platform, the emulator, a secret, the simulated bench's set-up: exits 3). The app answers
// each of these errors with its own contract code instead (src/core/app/errors.ts).
import { SimBenchError } from '../ble/sim/bench';
import { BoardFileError } from '../ble/sim/board-file';
import { PlatformError, PlatformUnreachableError } from '../platform/http';
import { ProfileError } from '../provisioning/profiles';
import { PsdiError } from '../audit/psdi';
import { SharedFileLockError } from '../data-folder/shared-file';
import { NotConfiguredError, PlatformAnswerError, SetupError, UnreachableError } from './errors';

/** `input` when changing what was asked would fix it, `station` when the station must change. */
export function refusalOf(err: unknown): 'input' | 'station' | undefined {
  if (
    err instanceof BoardFileError ||
    err instanceof ProfileError ||
    err instanceof PsdiError ||
    err instanceof SimBenchError ||
    err instanceof SetupError
  )
    return 'input';
  if (
    err instanceof NotConfiguredError ||
    err instanceof SharedFileLockError ||
    err instanceof PlatformAnswerError ||
    err instanceof UnreachableError ||
    err instanceof PlatformError ||
    err instanceof PlatformUnreachableError
  )
    return 'station';
  return undefined;
}
