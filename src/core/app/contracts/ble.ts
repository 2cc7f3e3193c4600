// The BLE bench: the adapter (hardware or the simulated bench) running in its own process,
// scanning, the GATT explorer, the simulated boards, provisioning and the audit log.
// Bytes cross the contract as lowercase hex; the UI shows them as hex, UTF-8 or base64.
import { z } from 'zod';
import { rssiSchema } from '../../bounds';
import {
  auditCursorSchema,
  auditQuerySchema,
  provisioningRecordSchema,
  type ProvisioningRecord,
} from '../../audit/records';
import { traceWindowSchema } from '../../ble/hci/trace-window';
import { adapterSpecText } from '../../ble/adapter-spec';
import { ADAPTER_STATES, uuidSchema } from '../../ble/port';
import { valueFormatSchema } from '../../ble/values/value-format';
import {
  connectionParametersSchema,
  linkInfoSchema,
  mtuSchema,
  phyRequestSchema,
} from '../../ble/link-parameters';
import { fileTextField } from './fields';
import { none, op } from './op';

const hex = z.string().regex(/^(?:[0-9a-f]{2})*$/, 'must be lowercase hex bytes');
const id = z.string().trim().min(1, 'is required');

/** One of the station's adapters (docs/decisions.md, "Several adapters at once"). */
export const adapterStatusSchema = z.object({
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

export const scanFilterSchema = z.object({
  serviceUuids: z.array(uuidSchema).max(16).default([]),
  name: z.string().trim().max(64).optional(),
  minRssi: rssiSchema.optional(),
});

/** One board as the scan view shows it: its latest advertisement and the RSSI samples since the last batch. */
export const scannedDeviceSchema = z.object({
  id: z.string(),
  address: z.string(),
  localName: z.string().optional(),
  serviceUuids: z.array(z.string()),
  manufacturerData: hex.optional(),
  txPowerLevel: z.number().optional(),
  /** The AD structures as received, where the HCI is visible (simulated bench, Linux adapter). */
  advertisingData: hex.optional(),
  scanResponseData: hex.optional(),
  connectable: z.boolean(),
  rssi: z.number(),
  rssiSamples: z.array(z.object({ at: z.number(), rssi: z.number() })),
  lastSeen: z.number(),
});
export type ScannedDevice = z.infer<typeof scannedDeviceSchema>;

export const scanBatchSchema = z.object({
  scanId: z.string(),
  at: z.number(),
  /** Boards heard since the previous batch, each once. */
  devices: z.array(scannedDeviceSchema),
  /** Advertisements folded into this batch. */
  advertisements: z.number(),
});

const characteristicSchema = z.object({
  uuid: z.string(),
  properties: z.array(z.string()),
  /** The board file's name for it (simulated boards). */
  name: z.string().optional(),
});
export const gattServiceSchema = z.object({
  uuid: z.string(),
  name: z.string().optional(),
  characteristics: z.array(characteristicSchema),
});

export const connectionSchema = z.object({
  connectionId: z.string(),
  deviceId: z.string(),
  mtu: z.number(),
  services: z.array(gattServiceSchema),
  /** The link as the controller reports it; absent on noble's OS bindings. */
  link: linkInfoSchema.optional(),
});
export type GattConnection = z.infer<typeof connectionSchema>;

const target = z.object({
  connectionId: id,
  serviceUuid: uuidSchema,
  characteristicUuid: uuidSchema,
});

export const gattLogEntrySchema = z.object({
  connectionId: z.string(),
  at: z.number(),
  kind: z.enum([
    'connect',
    'discover',
    'read',
    'write',
    'notify',
    'subscribe',
    'disconnect',
    'link',
    'error',
  ]),
  serviceUuid: z.string().optional(),
  characteristicUuid: z.string().optional(),
  data: hex.optional(),
  message: z.string().optional(),
  /** A write that resolved: false where the adapter cannot see a refusal (`native`). */
  writeConfirmed: z.boolean().optional(),
});

/** The board answers reads or writes of a characteristic (any, if none) with this ATT error. */
export const refuseAccessSchema = z.object({
  characteristic: uuidSchema.optional(),
  operation: z.enum(['read', 'write']),
  code: z
    .number()
    .int('must be a whole number')
    .min(0x01, 'must be an ATT error code, 0x01 to 0xff')
    .max(0xff, 'must be an ATT error code, 0x01 to 0xff'),
});

export const simBoardSchema = z.object({
  id: z.string(),
  address: z.string(),
  name: z.string(),
  source: z.string(),
  connected: z.boolean(),
  advertising: z.object({ serviceUuids: z.array(z.string()), intervalMs: z.number() }),
  provisioned: z
    .object({
      serviceUuid: z.string(),
      psdiServiceUuid: z.string(),
      psdiCharacteristicUuid: z.string(),
      psdi: z.string(),
    })
    .optional(),
  profileId: z.string().optional(),
  hasButton: z.boolean(),
  faults: z.object({
    refuseConnection: z.boolean(),
    dropLinkDuringWrite: z.boolean(),
    /** Matching writes let through before the one the link drops during. */
    dropLinkAfterWrites: z.number(),
    /** The characteristic whose write drops the link; any write when absent. */
    dropLinkCharacteristic: z.string().optional(),
    slowLinkFactor: z.number(),
    refusePairing: z.boolean(),
    refuseAccess: refuseAccessSchema.optional(),
  }),
});
export type SimBoard = z.infer<typeof simBoardSchema>;

const fileText = z.object({
  fileName: z.string().trim().min(1, 'is required').max(255),
  text: fileTextField,
});

export const psdiPlanSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({
      kind: z.literal('sequence'),
      prefix: z.string().max(32).default(''),
      start: z.number().int().min(0).default(1),
      width: z.number().int().min(1).max(20).default(6),
    }),
    z.object({
      kind: z.literal('random'),
      alphabet: z
        .string()
        .min(2, 'needs at least 2 characters')
        .max(100)
        .default('0123456789ABCDEF'),
      length: z.number().int().min(4).max(64).default(16),
      prefix: z.string().max(32).default(''),
    }),
    z.object({
      kind: z.literal('list'),
      /** The CSV as loaded; the first column (or `column`) holds the PSDIs. */
      csv: fileTextField,
      column: z.string().optional(),
      /** The first row is a header (implied by `column`); otherwise it must be a PSDI. */
      header: z.boolean().optional(),
    }),
  ],
  { error: "kind must be 'sequence', 'random' or 'list'" },
);

export const productPlanSchema = z.object({
  productId: id,
  profileId: id,
  psdi: psdiPlanSchema,
});

export const provisioningProfileViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  source: z.string(),
  psdiSource: z.enum(['tool', 'device']),
  service: z.string(),
});

export const auditRecordSchema = provisioningRecordSchema;
export type AuditRecordView = ProvisioningRecord;

export const provisioningProgressSchema = z.object({
  runId: z.string(),
  deviceId: z.string(),
  address: z.string().optional(),
  /** The board's advertised name, when it gives one. */
  name: z.string().optional(),
  step: z.string(),
  /**
   * `started`/`finished` per step; `done`, `failed` and `skipped` end the board. `skipped`: its
   * GATT does not fit the profile, nothing was reserved or written; `message` says why and
   * names the profile that fits.
   */
  phase: z.enum(['started', 'finished', 'retrying', 'done', 'failed', 'skipped']),
  attempt: z.number().optional(),
  psdi: z.string().optional(),
  recordId: z.number().optional(),
  message: z.string().optional(),
  at: z.number(),
});

export const batchSummarySchema = z.object({
  runId: z.string(),
  state: z.enum(['running', 'stopping', 'finished', 'stopped']),
  total: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  /** Boards of another profile, skipped before anything was reserved (not in `total`). */
  skipped: z.number().default(0),
  inFlight: z.number(),
  startedAt: z.number(),
  finishedAt: z.number().optional(),
  /** Set while the batch holds because the audit log cannot be reached: it resumes by itself. */
  storeError: z.string().optional(),
});

/** The HCI traffic of a time window as one btsnoop file, for Wireshark. */
export const hciTraceSchema = z.object({
  fileName: z.string(),
  /** The btsnoop file, base64: a window can hold megabytes, hex would double them. */
  data: z.base64(),
  /** HCI packets in the file; 0 when nothing crossed the HCI in the window. */
  packets: z.number(),
  bytes: z.number(),
});
export type HciTrace = z.infer<typeof hciTraceSchema>;

/**
 * Whose names and formats: a trial product's ID, or `bench` for boards of no product.
 * See docs/decisions.md "Names and value formats".
 */
const nameScope = z
  .string()
  .trim()
  .regex(/^(?:bench|[0-9A-Za-z_-]{1,64})$/, 'must be a trial product ID or "bench"');

export const nameMapSchema = z.object({
  /** Full 128-bit UUID (lowercase, no dashes) → the user's name for it. */
  names: z.record(z.string(), z.string()),
  /** Full 128-bit UUID → how its value reads. */
  formats: z.record(z.string(), valueFormatSchema),
});
export type NameMap = z.output<typeof nameMapSchema>;

const onLink = z.object({ connectionId: id });
/** A link and what changed it, live: the connected board's card follows these. */
export const linkChangeSchema = z.object({ connectionId: z.string(), link: linkInfoSchema });

/** Requests for a link, one op each; each answers the link after the controller's event. */
const linkOperations = {
  'ble:updateConnection': op(
    onLink.extend({ parameters: connectionParametersSchema }),
    linkInfoSchema,
  ),
  'ble:setPhy': op(onLink.extend({ phy: phyRequestSchema }), linkInfoSchema),
  'ble:pair': op(onLink, linkInfoSchema),
  'ble:readRssi': op(onLink, linkInfoSchema),
  /**
   * Ends the link and connects to the board again, asking for `mtu` in the new link's Exchange
   * MTU Request (ATT allows one per link, docs/decisions.md "MTU (asking for one)"). Answers the
   * new connection, as `ble:connect` does.
   */
  'ble:reconnect': op(onLink.extend({ mtu: mtuSchema }), connectionSchema),
} as const;

/**
 * The bench server's download of an export: `?query=<the filter as JSON>&exportId=<id>`. The
 * one route beside the operations, since a browser saves a streamed response but not an answer.
 */
export const AUDIT_EXPORT_PATH = '/api/audit/export.csv';

/** An export: its filter, and an id of the caller's choosing that its progress events carry. */
export const auditExportSchema = z.object({
  query: auditQuerySchema.omit({ limit: true, after: true }),
  exportId: z.string().regex(/^[\w-]{1,64}$/, 'must be 1–64 letters, digits, - or _'),
});
export type AuditExportInput = z.input<typeof auditExportSchema>;

export const auditExportResultSchema = z.discriminatedUnion('saved', [
  z.object({ saved: z.literal(true), file: z.string(), rows: z.number() }),
  /** The save dialog was cancelled: nothing was written. */
  z.object({ saved: z.literal(false) }),
]);

/** After each chunk of an export, and once when it ends (`done`). */
export const auditExportProgressSchema = z.object({
  exportId: z.string(),
  rows: z.number(),
  /** Records the filter matched when the export started (the search's count). */
  total: z.number(),
  done: z.boolean(),
  error: z.string().optional(),
});
export type AuditExportProgress = z.infer<typeof auditExportProgressSchema>;

// Serial ports for the adapter picker (docs/decisions.md, "H4 transports"): likely HCI dongles
// first; `adapter` is the spec that picks the port.
export const serialPortSchema = z.object({
  path: z.string(),
  adapter: z.string(),
  vendorId: z.number().int().nullable(),
  productId: z.number().int().nullable(),
  manufacturer: z.string().nullable(),
  serialNumber: z.string().nullable(),
  knownAs: z.string().nullable(),
  likelyHci: z.boolean(),
});
export type SerialPortView = z.infer<typeof serialPortSchema>;

export const bleOperations = {
  ...linkOperations,
  'ble:listSerialPorts': op(none, z.array(serialPortSchema)),
  'ble:getStatus': op(none, bleStatusSchema),
  /** Replaces the station's adapter list (kept in Settings) and restarts the BLE process on it. */
  'ble:setAdapters': op(z.object({ adapters: adapterListSchema }), bleStatusSchema),
  'ble:restartHost': op(none, bleStatusSchema),
  'ble:startScan': op(scanFilterSchema, z.object({ scanId: z.string() })),
  'ble:stopScan': op(z.object({ scanId: id }), z.object({ stopped: z.literal(true) })),
  /** `mtu`: what the link's Exchange MTU Request asks for (default noble's own, 256). */
  'ble:connect': op(z.object({ deviceId: id, mtu: mtuSchema.optional() }), connectionSchema),
  'ble:disconnect': op(z.object({ connectionId: id }), z.object({ disconnected: z.literal(true) })),
  'ble:read': op(target, z.object({ data: hex })),
  'ble:write': op(
    target.extend({ data: hex, withoutResponse: z.boolean().default(false) }),
    /** `confirmed` false: the adapter reported success whatever the board said (`native`). */
    z.object({ bytes: z.number(), confirmed: z.boolean() }),
  ),
  'ble:subscribe': op(target, z.object({ subscribed: z.literal(true) })),
  'ble:unsubscribe': op(target, z.object({ unsubscribed: z.literal(true) })),
  /** `from`–`to` in ms since the epoch; `label` names what the window was, in the file name. */
  'ble:exportTrace': op(
    traceWindowSchema.safeExtend({
      label: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be up to 40 lowercase letters, digits or dashes')
        .optional(),
      /** Which adapter's trace: its place in the station's list. Default the first. */
      adapter: z
        .number()
        .int()
        .min(0)
        .max(MAX_ADAPTERS - 1)
        .optional(),
    }),
    hciTraceSchema,
  ),

  'names:get': op(z.object({ scope: nameScope }), nameMapSchema),
  /** An empty name removes the user's name, so the board file's or the SIG's shows again. */
  'names:setName': op(
    z.object({
      scope: nameScope,
      uuid: uuidSchema,
      name: z.string().trim().max(60, 'name must be at most 60 characters'),
    }),
    nameMapSchema,
  ),
  /** `format` null forgets the choice. */
  'names:setFormat': op(
    z.object({ scope: nameScope, uuid: uuidSchema, format: valueFormatSchema.nullable() }),
    nameMapSchema,
  ),

  'sim:listBoards': op(none, z.array(simBoardSchema)),
  'sim:listBoardFiles': op(
    none,
    z.array(z.object({ name: z.string(), description: z.string().optional() })),
  ),
  'sim:loadBuiltIn': op(z.object({ name: id }), z.array(simBoardSchema)),
  'sim:loadBoards': op(fileText, z.array(simBoardSchema)),
  'sim:removeBoard': op(z.object({ boardId: id }), z.object({ removed: z.literal(true) })),
  'sim:pressButton': op(z.object({ boardId: id }), z.object({ pressed: z.literal(true) })),
  'sim:setFaults': op(
    z.object({
      boardId: id,
      refuseConnection: z.boolean().optional(),
      dropLinkDuringWrite: z.boolean().optional(),
      dropLinkAfterWrites: z
        .number()
        .int('must be a whole number')
        .min(0, 'must be 0 or more')
        .max(1000, 'must be at most 1000')
        .optional(),
      /** null: any characteristic's write. */
      dropLinkCharacteristic: uuidSchema.nullable().optional(),
      slowLinkFactor: z.number().min(1, 'must be at least 1').max(100).optional(),
      refusePairing: z.boolean().optional(),
      /** null clears it. */
      refuseAccess: refuseAccessSchema.nullable().optional(),
    }),
    simBoardSchema,
  ),
  'sim:factoryReset': op(z.object({ boardId: id }), simBoardSchema),

  'provisioning:listProfiles': op(none, z.array(provisioningProfileViewSchema)),
  'provisioning:loadProfile': op(fileText, provisioningProfileViewSchema),
  'provisioning:getPlan': op(z.object({ productId: id }), productPlanSchema.nullable()),
  'provisioning:savePlan': op(productPlanSchema, productPlanSchema),
  /** The PSDI this plan would hand out next, taking nothing; null when the firmware derives it. */
  'provisioning:nextPsdi': op(
    productPlanSchema,
    z.object({
      psdi: z.string().nullable(),
      /** A CSV list's rows left out (blank, repeated, too long, invalid), with their lines; absent when none. */
      skipped: z.array(z.object({ line: z.number(), message: z.string() })).optional(),
    }),
  ),
  'provisioning:provisionOne': op(
    z.object({ productId: id, deviceId: id }),
    z.object({ runId: z.string(), record: auditRecordSchema }),
  ),
  'provisioning:startBatch': op(
    z.object({
      productId: id,
      concurrency: z
        .number()
        .int()
        .min(1, 'must be at least 1')
        .max(16, 'must be at most 16')
        .default(4),
      name: z.string().trim().max(64).optional(),
      minRssi: rssiSchema.optional(),
      /** Stop after this many boards; omitted means every matching board in range. */
      limit: z.number().int().min(1).max(1000).optional(),
      /** Boards of another profile do not count toward `limit` (they are skipped either way). */
      onlyMatching: z.boolean().default(false),
    }),
    batchSummarySchema,
  ),
  'provisioning:stopBatch': op(z.object({ runId: id }), batchSummarySchema),
  /** Batches of this session, newest first: a page opened mid-batch picks it up from here. */
  'provisioning:listBatches': op(none, z.array(batchSummarySchema)),
  'provisioning:listUnfinished': op(none, z.array(auditRecordSchema)),
  'provisioning:reconcile': op(
    z.object({ recordId: z.number().int(), action: z.enum(['finish', 'release']) }),
    auditRecordSchema,
  ),

  'audit:search': op(
    auditQuerySchema,
    z.object({
      items: z.array(auditRecordSchema),
      total: z.number(),
      totalCapped: z.boolean(),
      next: auditCursorSchema.nullable(),
      limit: z.number(),
      textMatch: z.enum(['substring', 'prefix']),
    }),
  ),
  /** Gives back the PSDI a failed record holds; logged on the record with who and where. */
  'audit:releasePsdi': op(
    z.object({
      recordId: z.number().int(),
      reason: z
        .string()
        .trim()
        .min(1, 'Say why the PSDI can be used again')
        .max(200, 'Keep the reason under 200 characters'),
    }),
    auditRecordSchema,
  ),
  /**
   * The app (Electron): the main process asks where with a save dialog and streams the CSV
   * there; the path never comes from the page. Progress on `audit:exportProgress`. In a browser
   * the export is a download from the bench server (`GET /api/audit/export.csv`).
   */
  'audit:exportCsv': op(auditExportSchema, auditExportResultSchema),
} as const;

export const bleEvents = {
  'audit:exportProgress': auditExportProgressSchema,
  'ble:status': bleStatusSchema,
  'ble:scanBatch': scanBatchSchema,
  'ble:gattLog': gattLogEntrySchema,
  'ble:link': linkChangeSchema,
  /** Every simulated board after a change made through the contract (faults, loads, resets). */
  'sim:boards': z.array(simBoardSchema),
  'provisioning:progress': provisioningProgressSchema,
  'provisioning:batch': batchSummarySchema,
} as const;
