// The BLE bench: the adapter (hardware or the simulated bench) running in its own process,
// scanning, the GATT explorer, link requests and HCI traces. Bytes cross the contract as
// lowercase hex; the UI shows them as hex, UTF-8 or base64.
import { z } from 'zod';
import { requiredId as id, rssiSchema } from '../../bounds';
import { traceSettingsSchema } from '../../ble/hci/trace-settings';
import { traceWindowSchema } from '../../ble/hci/trace-window';
import { uuidSchema } from '../../ble/port';
import {
  connectionParametersSchema,
  linkInfoSchema,
  mtuSchema,
  pairingAnswerSchema,
  pairingPromptSchema,
  pairRequestSchema,
  phyRequestSchema,
} from '../../ble/link-parameters';
import {
  boardLinkSchema,
  gattLogEntrySchema,
  linkRecordSchema,
  loggedLinkSchema,
} from '../../ble/link-record';
import { bluetoothAddressSchema } from '../../ble/bluetooth-address';
import { bondStorageSchema } from '../../ble/security-manager/bond-summary';
import {
  adapterBondsSchema,
  adapterIdSchema,
  adapterListSchema,
  bleStatusSchema,
  connectionSchema,
  lowercaseHex,
  MAX_ADAPTERS,
  scannedDeviceSchema,
} from '../../usecases/bench/bench-schema';
import { none, op } from './op';

/** An adapter change or a restart: the status after it and the links it closed. */
const adapterChangeSchema = bleStatusSchema.extend({ closed: z.array(linkRecordSchema) });

const scanFilterSchema = z.object({
  serviceUuids: z.array(uuidSchema).max(16).default([]),
  name: z.string().trim().max(64).optional(),
  minRssi: rssiSchema.optional(),
});

const scanBatchSchema = z.object({
  scanId: z.string(),
  at: z.number(),
  /** Boards heard since the previous batch, each once. */
  devices: z.array(scannedDeviceSchema),
  /** Advertisements folded into this batch. */
  advertisements: z.number(),
});

const target = z.object({
  connectionId: id,
  serviceUuid: uuidSchema,
  characteristicUuid: uuidSchema,
});

/** The HCI traffic of a time window as one btsnoop file, for Wireshark. */
const hciTraceSchema = z.object({
  fileName: z.string(),
  /** The btsnoop file, base64: a window can hold megabytes, hex would double them. */
  data: z.base64(),
  /** HCI packets in the file; 0 when nothing crossed the HCI in the window. */
  packets: z.number(),
  bytes: z.number(),
  /** Link keys redacted in the file (docs/decisions/ble-and-hci.md, "Keys in traces"). */
  keysRedacted: z.number(),
  /** Link keys in the file in clear: only while the user keeps them. */
  keysInClear: z.number(),
});
export type HciTrace = z.infer<typeof hciTraceSchema>;

const onLink = z.object({ connectionId: id });
/** A link and what changed it, live: the connected board's card follows these. */
const linkChangeSchema = z.object({ connectionId: z.string(), link: linkInfoSchema });

/** Requests for a link, one op each; each answers the link after the controller's event. */
const linkOperations = {
  'ble:updateConnection': op(
    onLink.extend({ parameters: connectionParametersSchema }),
    linkInfoSchema,
  ),
  'ble:setPhy': op(onLink.extend({ phy: phyRequestSchema }), linkInfoSchema),
  'ble:pair': op(onLink.extend(pairRequestSchema.shape), linkInfoSchema),
  'ble:readRssi': op(onLink, linkInfoSchema),
  /** The person's answer to a `ble:pairingPrompt` (a passkey, or whether the numbers match). */
  'ble:answerPairing': op(pairingAnswerSchema, z.object({ answered: z.literal(true) })),
  /** The pairing prompts waiting now, for a window that opens while one waits. */
  'ble:listPairingPrompts': op(none, z.array(pairingPromptSchema)),
  /**
   * Connects to the link's board again, after a drop or asking for `mtu` in the new link's
   * Exchange MTU Request (ATT allows one per link, docs/decisions.md "MTU (asking for one)"),
   * ending the old link first if it is up. The link keeps its id and its log (docs/decisions.md,
   * "The BLE process holds the links"); answers it as `ble:connect` does.
   */
  'ble:reconnect': op(onLink.extend({ mtu: mtuSchema.optional() }), connectionSchema),
  /** Clears the link's log in the BLE process, for every window and every reload. */
  'ble:clearLog': op(onLink, z.object({ cleared: z.literal(true) })),
} as const;

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

export const bleOperations = {
  ...linkOperations,
  'ble:listSerialPorts': op(none, z.array(serialPortSchema)),
  'ble:getStatus': op(none, bleStatusSchema),
  /** Every link the BLE process holds, whoever opened it, with its GATT table and log. */
  'ble:listLinks': op(none, z.array(loggedLinkSchema)),
  /**
   * What a change to `adapters` would drop (the links on the adapters it closes), what removing
   * the open adapter `remove` (its status `id`) would, or, with neither, what restarting the BLE
   * process would (every connected link): asked before any of them.
   */
  'ble:planAdapters': op(
    z.object({ adapters: adapterListSchema.optional(), remove: adapterIdSchema.optional() }),
    z.object({ restart: z.boolean(), drops: z.array(linkRecordSchema) }),
  ),
  /**
   * Replaces the station's adapter list (kept in Settings), opening and closing only the
   * adapters that differ, beside the others. A change that would drop links is refused at
   * `dropLinks` until it is true. Answers the status and the links it closed.
   */
  'ble:setAdapters': op(
    z.object({ adapters: adapterListSchema, dropLinks: z.boolean().default(false) }),
    adapterChangeSchema,
  ),
  /**
   * Closes one open adapter by its status `id`, whatever its place and spec (two `sim` adapters
   * share a spec; a list change would close the last of them): kept in Settings like a list
   * change, refused at `dropLinks` the same way. Answers the status and the links it closed.
   */
  'ble:removeAdapter': op(
    z.object({ id: adapterIdSchema, dropLinks: z.boolean().default(false) }),
    adapterChangeSchema,
  ),
  /** A new BLE process on the same adapters; answers the links the old one closed. */
  'ble:restartHost': op(none, adapterChangeSchema),
  'ble:startScan': op(scanFilterSchema, z.object({ scanId: z.string() })),
  'ble:stopScan': op(z.object({ scanId: id }), z.object({ stopped: z.literal(true) })),
  /** `mtu`: what the link's Exchange MTU Request asks for (default noble's own, 256). */
  'ble:connect': op(z.object({ deviceId: id, mtu: mtuSchema.optional() }), connectionSchema),
  /** Ends a link, whoever opened it; a dropped one is taken off the list (its card's Dismiss); the explorer's stays listed, ended by its user, until then. */
  'ble:disconnect': op(z.object({ connectionId: id }), z.object({ disconnected: z.literal(true) })),
  'ble:read': op(target, z.object({ data: lowercaseHex })),
  'ble:write': op(
    target.extend({ data: lowercaseHex, withoutResponse: z.boolean().default(false) }),
    /** `confirmed` false: the adapter reported success whatever the board said (`native`). */
    z.object({ bytes: z.number(), confirmed: z.boolean() }),
  ),
  'ble:subscribe': op(target, z.object({ subscribed: z.literal(true) })),
  'ble:unsubscribe': op(target, z.object({ unsubscribed: z.literal(true) })),
  /** The station's bonds by adapter, without their keys, and where they are kept. */
  'ble:listBonds': op(none, adapterBondsSchema),
  /**
   * Forgets adapter identity `identity`'s bond with `board`, or all of its bonds without one;
   * answers how many. A link open to such a board stays encrypted until it drops; its next
   * connection pairs afresh (docs/decisions/ble-and-hci.md, "Bonds on the BLE bench").
   */
  'ble:forgetBonds': op(
    z.object({ identity: bluetoothAddressSchema, board: bluetoothAddressSchema.optional() }),
    z.object({ forgotten: z.number().int().min(0) }),
  ),
  /**
   * Sets a damaged `bonds.bin` aside (renamed with the time) and starts a new store: the name it
   * was set aside as, null when it was not damaged, and where the bonds are kept now
   * (docs/decisions/security-and-hardening.md, "A damaged bond store").
   */
  'ble:resetBonds': op(
    none,
    z.object({ setAsideAs: z.string().nullable(), storage: bondStorageSchema }),
  ),
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
  /** Whether the traces keep the link keys, from now on and in every export. */
  'ble:traceSettings': op(none, traceSettingsSchema),
  'ble:saveTraceSettings': op(traceSettingsSchema, traceSettingsSchema),
} as const;

export const bleEvents = {
  'ble:status': bleStatusSchema,
  /** The BLE process's links whenever one comes, goes, drops or changes (logs on `ble:gattLog`). */
  'ble:links': z.array(boardLinkSchema),
  'ble:scanBatch': scanBatchSchema,
  'ble:gattLog': gattLogEntrySchema,
  'ble:link': linkChangeSchema,
  /**
   * A pairing waits for the person at the station, within `remainingMs`; sent again as it is
   * answered and as its pairing ends (`state`, `message`).
   */
  'ble:pairingPrompt': pairingPromptSchema,
  /** The station's bonds by adapter, whenever one is kept or forgotten. */
  'ble:bonds': adapterBondsSchema,
} as const;
