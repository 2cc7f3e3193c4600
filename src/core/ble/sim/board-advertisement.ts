// What a board puts in its advertisements, in the shape noble reports: the MCUmgr server's
// product service and the provisioning profile's service (whichever the board has now) ahead of
// the board file's own service UUIDs.
import type { BoardDefinition } from './board-file';

export interface Advertisement {
  localName: string;
  serviceUuids: string[];
  manufacturerData?: Buffer;
  txPowerLevel?: number;
}

export function buildAdvertisement(
  def: BoardDefinition,
  stateUuids: readonly string[],
): Advertisement {
  return {
    localName: def.name,
    serviceUuids: [...new Set([...stateUuids, ...def.advertising.serviceUuids])],
    manufacturerData:
      def.advertising.manufacturerData !== undefined
        ? Buffer.from(def.advertising.manufacturerData, 'hex')
        : undefined,
    txPowerLevel: def.advertising.txPower,
  };
}
