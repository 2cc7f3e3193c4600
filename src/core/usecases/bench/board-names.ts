// A simulated board's GATT table carries the names its board file gave its services and
// characteristics, wherever the app hands the table on (the GATT explorer, the scenario lint).
// Hardware boards have no board file: their tables pass unchanged.
import type { ServiceInfo } from '../../ble/port';
import type { UuidNames } from '../../ble/names/resolver';
import type { HostSupervisor } from './host-supervisor';
import { usesSimulatedBench } from './bench-schema';

export interface NamedService extends ServiceInfo {
  name?: string;
  characteristics: (ServiceInfo['characteristics'][number] & { name?: string })[];
}

/** The simulated board `deviceId` (noble's peripheral id: its address without colons), if any. */
async function simBoard(supervisor: HostSupervisor, deviceId: string) {
  if (!usesSimulatedBench(supervisor.status())) return undefined;
  return (await supervisor.sim('boards', {})).find((b) => b.address.replace(/:/g, '') === deviceId);
}

/** The names the board file of `deviceId` gives its services and characteristics, if any. */
export async function boardNames(
  supervisor: HostSupervisor,
  deviceId: string,
): Promise<UuidNames | undefined> {
  return (await simBoard(supervisor, deviceId))?.names;
}

export async function withBoardNames(
  supervisor: HostSupervisor,
  deviceId: string,
  services: ServiceInfo[],
): Promise<NamedService[]> {
  const board = await simBoard(supervisor, deviceId);
  if (!board) return services;
  const named = <A extends { uuid: string }>(a: A) => ({ ...a, name: board.names[a.uuid] });
  return services.map((s) => ({ ...named(s), characteristics: s.characteristics.map(named) }));
}
