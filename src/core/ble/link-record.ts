// The links the BLE process holds, as every window and front end sees them (docs/decisions.md,
// "The BLE process holds the links"): each link's record, its GATT cache and its log. The BLE
// process keeps them; the app passes them on and the windows only render them. Browser-safe
// (zod only).
import { z } from 'zod';
import { linkInfoSchema } from './link-parameters';
import { normalizeUuid } from './port';

/** Who opened a link: the GATT explorer, a provisioning run or batch, a dry run, the CLI. */
const LINK_USERS = ['explorer', 'provisioning', 'dry-run', 'cli'] as const;
export const linkUserSchema = z.enum(LINK_USERS);
export type LinkUser = z.infer<typeof linkUserSchema>;

export const linkRecordSchema = z.object({
  /** The BLE process's id for the link; a reconnect keeps it, so the card stays the same one. */
  connectionId: z.string(),
  /** The adapter it goes through (its spec's canonical text). */
  adapter: z.string().optional(),
  /** noble's peripheral id: what a connect takes. */
  deviceId: z.string(),
  address: z.string(),
  /** The board's identity address, when its advertised address was a resolved private one. */
  identityAddress: z.string().optional(),
  /** Its advertised name, when it had one. */
  name: z.string().optional(),
  /**
   * The service UUIDs its advertisement carried when the link was made (a provisioned board
   * advertises its product's): what the windows name the board's product by.
   */
  advertisedServices: z.array(z.string()),
  /**
   * `dropped`: the link is down; an explorer link stays listed, whether it dropped or its user
   * ended it (`endedByUser`), until Reconnect or Dismiss.
   */
  state: z.enum(['connected', 'dropped']),
  /** Its user ended it (the card's or the scan row's Disconnect), at `droppedAt`. */
  endedByUser: z.boolean().optional(),
  /** When the current link was made (ms since the epoch): a reconnect moves it. */
  openedAt: z.number(),
  droppedAt: z.number().optional(),
  droppedReason: z.string().optional(),
  /** The negotiated ATT MTU. */
  mtu: z.number(),
  /** The link as the controller reports it; absent on noble's OS bindings. */
  info: linkInfoSchema.optional(),
  user: linkUserSchema,
});
export type LinkRecord = z.infer<typeof linkRecordSchema>;

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
export type GattService = z.infer<typeof gattServiceSchema>;

/** A link with what the process keeps of its board: the GATT table and its subscriptions. */
export const boardLinkSchema = linkRecordSchema.extend({
  /** The board's GATT table as last discovered on this link; empty until then. */
  services: z.array(gattServiceSchema),
  /** Characteristics notifying on the current link, as `<service uuid>/<characteristic uuid>`. */
  subscriptions: z.array(z.string()),
});
export type BoardLink = z.infer<typeof boardLinkSchema>;

const hex = z.string().regex(/^(?:[0-9a-f]{2})*$/, 'must be lowercase hex bytes');

const GATT_LOG_KINDS = [
  'connect',
  'discover',
  'read',
  'write',
  'notify',
  'subscribe',
  'disconnect',
  'link',
  'error',
  /** The log was cleared here: every window drops what came before (its Clear log). */
  'cleared',
] as const;

/** One thing that happened on a link, in the link's log. */
export const gattLogEntrySchema = z.object({
  connectionId: z.string(),
  /** Counts up across the process's logs: a window merges a snapshot and events by it. */
  seq: z.number().int(),
  at: z.number(),
  kind: z.enum(GATT_LOG_KINDS),
  serviceUuid: z.string().optional(),
  characteristicUuid: z.string().optional(),
  data: hex.optional(),
  message: z.string().optional(),
  /** A write that resolved: false where the adapter cannot see a refusal (`native`). */
  writeConfirmed: z.boolean().optional(),
});
export type GattLogEntry = z.infer<typeof gattLogEntrySchema>;

/** A link with its log, as a window loads it. */
export const loggedLinkSchema = boardLinkSchema.extend({ log: z.array(gattLogEntrySchema) });
export type LoggedLink = z.infer<typeof loggedLinkSchema>;

/** The key a subscription is listed under. */
export function subscriptionKey(serviceUuid: string, characteristicUuid: string): string {
  return `${normalizeUuid(serviceUuid)}/${normalizeUuid(characteristicUuid)}`;
}
