// What a platform console's use case stands on: the station's environments (whose active one a
// send goes to), how the platform clients retry, and the embedded emulator whose admin API sets
// up the state a send answers from (docs/decisions/tooling.md, "The use-case floor").
import { EmulatorAdminClient } from '../../emulator/admin-client';
import type { RunningEmulator } from '../../emulator/server';
import { PlatformHttp, type HttpOptions } from '../../platform/http';
import type { ActiveChannel, Environments } from '../environments';
import { NotConfiguredError } from '../errors';

export interface ConsoleSetup {
  envs: Environments;
  /** How the platform clients retry (tests make it quick). */
  http?: HttpOptions;
  /** The embedded emulator; throws, saying why, when it is not running. */
  emulator: () => RunningEmulator;
  /** The embedded emulator if it started. */
  running: () => RunningEmulator | undefined;
}

/** One area's admin API on the embedded emulator (`/__admin/<area>`), answered as it is. */
export function areaAdmin(setup: ConsoleSetup, area: string): PlatformHttp {
  return new PlatformHttp({ baseUrl: `${setup.emulator().adminUrl}/${area}` }, { maxRetries: 0 });
}

/** The embedded emulator's admin API (`/__admin`): its state, users, clock, faults and logs. */
export function emulatorAdmin(setup: Pick<ConsoleSetup, 'emulator'>): EmulatorAdminClient {
  return new EmulatorAdminClient(setup.emulator().adminUrl);
}

/**
 * The active channel, when it is the embedded emulator's: for settings that exist only there
 * (seeded data, codes minted without a browser). Otherwise refused as not configured, saying
 * what needs the emulator and what to do instead.
 */
export async function emulatorChannel(
  setup: ConsoleSetup,
  what: string,
  instead = 'switch to the Local emulator environment.',
): Promise<ActiveChannel & { adminUrl: string }> {
  const channel = await setup.envs.activeChannel();
  if (channel.kind !== 'emulator')
    throw new NotConfiguredError(`${what}: local emulator only; ${instead}`);
  return { ...channel, adminUrl: setup.emulator().adminUrl };
}
