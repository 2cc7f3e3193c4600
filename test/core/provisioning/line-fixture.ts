// A station's tray for the line tests: `boards` simulated blank boards whose addresses are the
// station's own, so stations never see each other's boards.
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import { V1 } from './fixture';

export interface StationOptions {
  url: string;
  station: string;
  /** Which station (0-based): picks the address range. */
  index: number;
  boards: number;
  stateFile?: string;
  /** Per-operation latency of the boards; slower boards give a kill test time to aim. */
  perOperationMs?: number;
}

export function stationTray(options: StationOptions): BoardSpecInput[] {
  return Array.from({ length: options.boards }, (_, i) => {
    const hex = (i + 1).toString(16).padStart(4, '0');
    return {
      name: `Line ${options.index}-${i + 1}`,
      address: `c2:8e:3${options.index}:00:${hex.slice(0, 2)}:${hex.slice(2)}`,
      advertising: { intervalMs: 20, rssi: { mean: -50, noise: 0 } },
      latency: { connectMs: 15, perOperationMs: options.perOperationMs ?? 3 },
      provisioning: { profile: V1.id, rebootMs: 50 },
    };
  });
}
