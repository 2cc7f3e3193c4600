// Messages between the app and the BLE process. The app asks (`request`), the process answers
// once (`response`) and reports what happens on the radio (`event`). Byte arrays travel as
// Uint8Array: both transports (Node's advanced IPC serialization, Electron's structured clone)
// keep them.
import { z } from 'zod';
import type { AdapterState, Advertisement, ServiceInfo } from '../port';

export const hostConfigSchema = z.object({
  mode: z.enum(['simulated', 'hardware']),
  /** Simulated bench: where committed identities persist, as flash would. */
  stateFile: z.string().optional(),
  /** Simulated bench: board files loaded at start. */
  boardFiles: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  /**
   * Where the session's HCI traffic goes as btsnoop files (src/core/ble/hci/trace-store.ts),
   * simulated bench and hardware alike; no traces without it.
   */
  traceDir: z.string().min(1, 'is empty').optional(),
});
export type HostConfig = z.infer<typeof hostConfigSchema>;

export interface CentralMethods {
  startScan(filter: { serviceUuids?: string[]; name?: string; minRssi?: number }): string;
  stopScan(scanId: string): void;
  connect(deviceId: string, timeoutMs?: number): { connectionId: string; mtu: number };
  discover(connectionId: string): ServiceInfo[];
  read(connectionId: string, serviceUuid: string, characteristicUuid: string): Uint8Array;
  write(
    connectionId: string,
    serviceUuid: string,
    characteristicUuid: string,
    data: Uint8Array,
    withoutResponse: boolean,
  ): void;
  subscribe(connectionId: string, serviceUuid: string, characteristicUuid: string): string;
  unsubscribe(subscriptionId: string): void;
  disconnect(connectionId: string): void;
}

/** The simulated bench's controls, forwarded as they are; absent on hardware. */
export const SIM_METHODS = [
  'boards',
  'loadBoardFile',
  'loadBoards',
  'removeBoard',
  'pressButton',
  'setFaults',
  'factoryReset',
] as const;
export type SimMethod = (typeof SIM_METHODS)[number];

export type Request =
  | {
      type: 'request';
      id: number;
      target: 'central';
      method: keyof CentralMethods;
      args: unknown[];
    }
  | { type: 'request'; id: number; target: 'sim'; method: SimMethod; args: unknown[] };

export interface SerializedError {
  name: string;
  message: string;
  step?: string;
  deviceId?: string;
}

export type Response =
  | { type: 'response'; id: number; ok: true; value: unknown }
  | { type: 'response'; id: number; ok: false; error: SerializedError };

export type HostEvent =
  | { type: 'event'; event: 'ready'; state: AdapterState; reason?: string }
  | { type: 'event'; event: 'state'; state: AdapterState }
  | { type: 'event'; event: 'scan'; scanId: string; ads: Advertisement[] }
  | { type: 'event'; event: 'notify'; subscriptionId: string; data: Uint8Array }
  | { type: 'event'; event: 'disconnected'; connectionId: string; reason: string };

export type HostMessage = Response | HostEvent;

/** How the app reaches the process: a Node child, or an Electron utility process. */
export interface HostChannel {
  readonly pid: number | undefined;
  send(message: Request): void;
  onMessage(handler: (message: HostMessage) => void): void;
  /** Once, when the process is gone for whatever reason. */
  onExit(handler: (reason: string) => void): void;
  kill(): void;
}
