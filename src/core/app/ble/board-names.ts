// A simulated board's GATT table carries the names its board file gave its services and
// characteristics, wherever the app hands the table on (the GATT explorer, the scenario lint).
// Hardware boards have no board file: their tables pass unchanged.
import type { ServiceInfo } from '../../ble/port';
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
