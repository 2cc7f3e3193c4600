// A service of a running simulated board: the board file's definition with the functions that
// answer reads and writes, attached by the board's GATT table (board-gatt-table.ts) or by its
// provisioning state machine (board-provisioning.ts).
import type { AttResult } from './att-server';
import type { CharacteristicDefinition, ServiceDefinition } from './board-file';

export interface Characteristic extends CharacteristicDefinition {
  read?: () => Uint8Array;
  write?: (data: Uint8Array) => AttResult;
}

export interface Service extends Omit<ServiceDefinition, 'characteristics'> {
  characteristics: Characteristic[];
}
