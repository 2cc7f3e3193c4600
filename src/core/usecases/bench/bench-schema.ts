// What the bench's use cases report about the station and its boards: the adapters and the
// BLE process, a scanned board, an open GATT connection. The contract carries them as they are
// (src/core/app/contracts/ble.ts); they live here, with no Node import, because the use cases
// that produce them sit below the contract (docs/architecture.md, "Layers").
import { z } from 'zod';
import { adapterSpecText } from '../../ble/adapter-spec';
import { adapterIdentitySchema } from '../../ble/adapter-identity';
import { linkInfoSchema } from '../../ble/link-parameters';
import { bondStorageSchema, bondSummarySchema } from '../../ble/security-manager/bond-summary';
import { gattServiceSchema } from '../../ble/link-record';
import { ADAPTER_STATES } from '../../ble/port';

/** Bytes as the contract carries them; the UI shows them as hex, UTF-8 or base64. */
export const lowercaseHex = z.string().regex(/^(?:[0-9a-f]{2})*$/, 'must be lowercase hex bytes');

/** An open adapter's handle (src/core/ble/radio/multi-adapter-central.ts, `AdapterView.id`). */
export const adapterIdSchema = z.string().min(1, 'names no adapter').max(64);

/** One of the station's adapters (docs/decisions.md, "Several adapters at once"). */
const adapterStatusSchema = z.object({
  /**
   * The open adapter's id, what a removal names (docs/decisions/ble-and-hci.md, "Adapters
   * addressed by id"); absent while the BLE process is not running.
   */
  id: adapterIdSchema.optional(),
  /** The spec's canonical text (src/core/ble/adapter-spec.ts). */
  spec: z.string(),
  /** The spec in words. */
  description: z.string(),
  state: z.enum(ADAPTER_STATES),
  /** Why it is not usable and what to do, when it is not poweredOn. */
  guidance: z.string().optional(),
  linksInUse: z.number().int(),
  linkCapacity: z.number().int(),
  /** False on `native`: its write results are "not confirmed by the board". */
  writesConfirmed: z.boolean(),
  /**
   * The address the adapter uses on the air and where it came from (docs/decisions.md, "One
   * identity per dongle"); absent until the HCI path settled it, and on `native`.
   */
  identity: adapterIdentitySchema.optional(),
});
export type AdapterStatus = z.infer<typeof adapterStatusSchema>;

/** A station opens at most this many adapters at once. */
export const MAX_ADAPTERS = 8;

export const adapterListSchema = z
  .array(adapterSpecText)
  .min(1, 'names no adapter: add at least one (e.g. sim)')
  .max(MAX_ADAPTERS, `holds at most ${MAX_ADAPTERS} adapters`);

export const bleStatusSchema = z.object({
  /** The station's adapters, in the order they were chosen; the first keeps `traces/`. */
  adapters: z.array(adapterStatusSchema),
  /** poweredOn while any adapter is. */
  adapterState: z.enum(ADAPTER_STATES),
  /** What the user can do about a state other than poweredOn. */
  guidance: z.string().optional(),
  host: z.object({
    running: z.boolean(),
    pid: z.number().optional(),
    /** Times the BLE process ended without being asked to. */
    crashes: z.number(),
    lastCrash: z.object({ at: z.number(), reason: z.string() }).optional(),
  }),
});
export type BleStatus = z.infer<typeof bleStatusSchema>;

/** Whether the station's list includes the simulated bench, whose boards the app can change. */
export function usesSimulatedBench(status: Pick<BleStatus, 'adapters'>): boolean {
  return status.adapters.some((a) => a.spec === 'sim');
}

/** One board as the scan view shows it: its latest advertisement and the RSSI samples since the last batch. */
export const scannedDeviceSchema = z.object({
  id: z.string(),
  address: z.string(),
  localName: z.string().optional(),
  serviceUuids: z.array(z.string()),
  manufacturerData: lowercaseHex.optional(),
  txPowerLevel: z.number().optional(),
  /** The AD structures as received, where the HCI is visible (simulated bench, Linux adapter). */
  advertisingData: lowercaseHex.optional(),
  scanResponseData: lowercaseHex.optional(),
  connectable: z.boolean(),
  rssi: z.number(),
  rssiSamples: z.array(z.object({ at: z.number(), rssi: z.number() })),
  lastSeen: z.number(),
  /**
   * The ids the board was heard under before, at earlier private addresses its bond resolves to
   * the same identity (`Advertisement.formerIds`): the list drops their rows for this one.
   */
  formerIds: z.array(z.string()).optional(),
});
export type ScannedDevice = z.infer<typeof scannedDeviceSchema>;

export const connectionSchema = z.object({
  connectionId: z.string(),
  deviceId: z.string(),
  mtu: z.number(),
  services: z.array(gattServiceSchema),
  /** The link as the controller reports it; absent on noble's OS bindings. */
  link: linkInfoSchema.optional(),
});
export type GattConnection = z.infer<typeof connectionSchema>;

/**
 * The station's bonds by adapter, in the station's order: each adapter's are those made with
 * its identity (none before it has one, nor on `native`); `storage` says where they are kept
 * (docs/decisions/ble-and-hci.md, "Bonds on the BLE bench").
 */
export const adapterBondsSchema = z.object({
  storage: bondStorageSchema,
  adapters: z.array(
    z.object({
      index: z.number().int().min(0),
      spec: z.string(),
      description: z.string(),
      identity: adapterIdentitySchema.optional(),
      bonds: z.array(bondSummarySchema),
    }),
  ),
});
export type AdapterBonds = z.infer<typeof adapterBondsSchema>;
