// A simulated board's GATT table carries the names its board file gave its services and
// characteristics, wherever the app hands the table on (the GATT explorer, the scenario lint).
// Hardware boards have no board file: their tables pass unchanged.
import { reportedUuid, type ServiceInfo } from '../../ble/port';
import { resolveName } from '../../ble/names/resolver';
import type { HostSupervisor } from './host-supervisor';
import { usesSimulatedBench } from '../contracts/ble';

export interface NamedService extends ServiceInfo {
  name?: string;
  characteristics: (ServiceInfo['characteristics'][number] & { name?: string })[];
}

/** `deviceId` is noble's peripheral id: the board's address without colons. */
export async function withBoardNames(
  supervisor: HostSupervisor,
  deviceId: string,
  services: ServiceInfo[],
): Promise<NamedService[]> {
  if (!usesSimulatedBench(supervisor.status())) return services;
  const board = (await supervisor.sim('boards', {})).find(
    (b) => b.address.replace(/:/g, '') === deviceId,
  );
  if (!board) return services;
  const named = <A extends { uuid: string }>(a: A) => ({ ...a, name: board.names[a.uuid] });
  return services.map((s) => ({ ...named(s), characteristics: s.characteristics.map(named) }));
}

/**
 * What the app knows of one characteristic of the board `deviceId`: its name (the board file's,
 * else the SIG's) and, on the simulated bench, its longest value.
 */
export async function characteristicFacts(
  supervisor: HostSupervisor,
  deviceId: string,
  uuid: string,
): Promise<{ name?: string; maxLength?: number }> {
  const board = usesSimulatedBench(supervisor.status())
    ? (await supervisor.sim('boards', {})).find((b) => b.address.replace(/:/g, '') === deviceId)
    : undefined;
  const key = reportedUuid(uuid);
  return {
    name: resolveName(uuid, { board: board?.names, kinds: ['characteristic'] })?.name,
    maxLength: board?.maxLengths[key],
  };
}
