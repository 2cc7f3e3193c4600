// A board's GATT table as a scenario set is checked against (the editor's lint, `devicebench
// scenario lint --board`): connect, discover, and let the link go whatever happened.
import type { BleCentral, ServiceInfo } from '../../ble/port';

export interface BoardTable {
  mtu: number;
  services: ServiceInfo[];
}

export async function readBoard(
  central: BleCentral,
  deviceId: string,
  /** How long the connect may take; the central's own bound when absent. */
  timeoutMs?: number,
): Promise<BoardTable> {
  const connection = await central.connect(
    deviceId,
    timeoutMs === undefined ? undefined : { timeoutMs },
  );
  try {
    return { mtu: connection.mtu, services: await connection.discover() };
  } finally {
    await connection.disconnect().catch(() => undefined);
  }
}
