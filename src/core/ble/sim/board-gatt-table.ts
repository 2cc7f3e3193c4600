// A board's GATT table for its current state: the board file's services, then the provisioning
// profile's service (board-provisioning.ts), the MCUmgr service (board-mcumgr.ts) and, once the
// MCUmgr server has an identity, the read-only PSDI service.
import type { BoardMcumgr } from './board-mcumgr';
import type { BoardProvisioning } from './board-provisioning';
import type { Characteristic, Service } from './board-service';
import type { ServiceDefinition } from './board-file';
import type { GattServiceSpec } from './gatt-database';

export function buildGattTable(
  services: readonly ServiceDefinition[],
  provisioning: BoardProvisioning | undefined,
  mcumgr: BoardMcumgr | undefined,
): Service[] {
  const table: Service[] = services.map((s) => ({
    ...s,
    characteristics: [...s.characteristics],
  }));
  if (provisioning) table.push(provisioning.service());
  if (mcumgr) table.push(mcumgr.service());
  const identity = mcumgr?.identity;
  if (identity) {
    const psdi = Buffer.from(identity.psdi, 'utf8');
    table.push({
      uuid: identity.psdiServiceUuid,
      name: 'PSDI',
      characteristics: [
        {
          uuid: identity.psdiCharacteristicUuid,
          name: 'PSDI',
          properties: ['read'],
          value: psdi,
          maxLength: psdi.length,
          read: () => psdi,
        },
      ],
    });
  }
  return table;
}

export function findCharacteristic(
  table: readonly Service[],
  service: string,
  characteristic: string,
): Characteristic | undefined {
  return table
    .find((s) => s.uuid === service)
    ?.characteristics.find((c) => c.uuid === characteristic);
}

/** The table as the board's ATT server lays it out. */
export function gattSpecs(table: readonly Service[]): GattServiceSpec[] {
  return table.map((s) => ({
    uuid: s.uuid,
    characteristics: s.characteristics.map((c) => ({
      uuid: c.uuid,
      name: c.name,
      properties: c.properties,
      permissions: c.permissions,
      maxLength: c.maxLength,
    })),
  }));
}

/** One characteristic's key in a board's maps of values and subscriptions. */
export const characteristicKey = (service: string, characteristic: string) =>
  `${service}/${characteristic}`;
