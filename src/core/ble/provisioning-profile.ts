// A provisioning profile: how DeviceBench writes a trial product's UUIDs and a PSDI onto a
// prototype — the GATT layout its firmware exposes, or the MCUmgr settings keys a stock Zephyr
// board reads (docs/provisioning-protocol.md). Profiles are data (JSON
// in resources/profiles/ or loaded by the user), chosen per product; the simulated boards
// implement the same data, so the tool and the sim cannot drift apart. It sits under ble/ so
// the simulated bench and provisioning both build on it and the sim never imports provisioning.
import { z } from 'zod';
import { MCUMGR_SERVICE_UUID } from './mcumgr/service';
import { settingsKeyProblem } from './mcumgr/settings-group';
import { uuidSchema } from './port';
import { LINK_PERMISSIONS } from './link-parameters';

const hexBytes = z
  .string()
  .regex(/^(?:[0-9a-fA-F]{2})+$/, 'must be hex bytes, e.g. "01"')
  .transform((h) => h.toLowerCase());

const profileId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be lowercase letters, digits and dashes');
const profileName = z.string().trim().min(1, 'is required').max(80);
const profileDescription = z.string().max(500).optional();

/** A GATT profile: the firmware's own provisioning service (the kind when none is given). */
export const provisioningProfileSchema = z.object({
  kind: z.literal('gatt', { error: 'must be "gatt" or "mcumgr-settings"' }).optional(),
  id: profileId,
  name: profileName,
  description: profileDescription,
  /** The provisioning service a blank board advertises and exposes. */
  service: uuidSchema,
  characteristics: z.object({
    /** Write: the product's serviceUuid. */
    serviceUuid: uuidSchema,
    /** Write: the product's psdiServiceUuid. */
    psdiServiceUuid: uuidSchema,
    /** Write: the product's psdiCharacteristicUuid. */
    psdiCharacteristicUuid: uuidSchema,
    /** Write the PSDI (source `tool`), or read the one the firmware derived (source `device`). */
    psdi: uuidSchema,
    /** Write: `commit.value` commits what was written. */
    control: uuidSchema,
    /** Read and notify: one status byte (see `STATUS`). */
    status: uuidSchema,
  }),
  /** How a UUID is written: 16 raw bytes in the order the string reads, or its dashed text. */
  uuidEncoding: z.enum(['bytes', 'text']).default('bytes'),
  psdi: z
    .object({
      source: z.enum(['tool', 'device']).default('tool'),
      /** The PSDI travels as UTF-8; longer than this is refused before anything is written. */
      maxBytes: z.number().int().min(1).max(244).default(20),
      /**
       * What the link must be to read the PSDI characteristic once the board is in product
       * mode: any link, an encrypted one, an authenticated one, or authenticated LE Secure
       * Connections (the board answers as Zephyr's GATT server until the link is).
       */
      readPermission: z.enum(LINK_PERMISSIONS).default('open'),
    })
    .prefault({}),
  commit: z.object({ value: hexBytes.default('01') }).prefault({}),
  /**
   * The security the product needs, as LE security mode 1 levels (link-parameters.ts): 1 none,
   * 2 encrypted, 3 authenticated, 4 authenticated LE Secure Connections. Above 1 the station
   * pairs before a PSDI is reserved, so a pairing that fails burns nothing.
   */
  security: z
    .object({
      level: z
        .union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], {
          error: 'must be 1, 2, 3 or 4 (LE security mode 1 level)',
        })
        .default(1),
      /**
       * Ask the board to bond when the station pairs (at level 1 too): a board with privacy comes
       * back from its reboot under a new private address, which only the bond's IRK resolves.
       * Left out, the station's own setting holds.
       */
      bond: z.boolean().optional(),
    })
    .prefault({}),
});

export type ProvisioningProfile = z.output<typeof provisioningProfileSchema>;

/**
 * What each characteristic of a GATT profile is called wherever it is shown: the simulated
 * boards' GATT tables and the provisioning steps' errors (docs/provisioning-protocol.md).
 */
export const PROFILE_CHARACTERISTIC_NAMES: Record<
  keyof ProvisioningProfile['characteristics'],
  string
> = {
  serviceUuid: 'Product service UUID',
  psdiServiceUuid: 'PSDI service UUID',
  psdiCharacteristicUuid: 'PSDI characteristic UUID',
  psdi: 'PSDI',
  control: 'Control',
  status: 'Status',
};

const settingsKey = z.string().superRefine((key, ctx) => {
  const problem = settingsKeyProblem(key);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * An MCUmgr settings profile: a stock Zephyr board takes the product's UUIDs and the PSDI as
 * settings keys over MCUmgr, saves them and reads them at its next boot
 * (docs/provisioning-protocol.md, "MCUmgr settings profiles"). The blank board advertises the
 * SMP service, which stands as the profile's `service`.
 */
export const mcumgrSettingsProfileSchema = z
  .object({
    kind: z.literal('mcumgr-settings'),
    id: profileId,
    name: profileName,
    description: profileDescription,
    /** The settings key each value is written to. */
    keys: z.object({
      serviceUuid: settingsKey,
      psdiServiceUuid: settingsKey,
      psdiCharacteristicUuid: settingsKey,
      psdi: settingsKey,
    }),
    /** How a UUID is written: its dashed text (what a settings handler most easily reads) or 16 bytes. */
    uuidEncoding: z.enum(['bytes', 'text']).default('text'),
    psdi: z
      .object({
        /** Settings carry what the tool writes: the tool always hands out the PSDI. */
        source: z.literal('tool').default('tool'),
        maxBytes: z.number().int().min(1).max(244).default(20),
      })
      .prefault({}),
  })
  .transform((profile) => ({ ...profile, service: MCUMGR_SERVICE_UUID }));

export type McumgrSettingsProfile = z.output<typeof mcumgrSettingsProfileSchema>;

/** A profile of either kind, as profile files and plans name them. */
export type AnyProvisioningProfile = ProvisioningProfile | McumgrSettingsProfile;

/** The schema a profile's `kind` names; a GATT profile leaves it out. */
export function profileSchemaFor(
  json: unknown,
): typeof provisioningProfileSchema | typeof mcumgrSettingsProfileSchema {
  const kind = typeof json === 'object' && json !== null && 'kind' in json ? json.kind : undefined;
  return kind === 'mcumgr-settings' ? mcumgrSettingsProfileSchema : provisioningProfileSchema;
}

/** The status characteristic's byte. */
export const STATUS = {
  blank: 0x00,
  /** Some values written, not committed. */
  pending: 0x01,
  committed: 0x02,
  /** Commit refused: a value is missing or malformed. */
  rejected: 0x80,
} as const;

/** The bytes a profile writes for a UUID (any accepted form). */
export function encodeUuid(
  profile: Pick<ProvisioningProfile, 'uuidEncoding'>,
  uuid: string,
): Uint8Array {
  const compact = uuidSchema.parse(uuid);
  if (compact.length !== 32) throw new Error(`"${uuid}" is not a 128-bit UUID`);
  if (profile.uuidEncoding === 'bytes') return Uint8Array.from(Buffer.from(compact, 'hex'));
  const dashed = `${compact.slice(0, 8)}-${compact.slice(8, 12)}-${compact.slice(12, 16)}-${compact.slice(16, 20)}-${compact.slice(20)}`;
  return new TextEncoder().encode(dashed);
}

/** The inverse of `encodeUuid`, for boards (the sim, the firmware) that receive the bytes. */
export function decodeUuid(profile: ProvisioningProfile, data: Uint8Array): string {
  if (profile.uuidEncoding === 'bytes') {
    if (data.length !== 16) throw new Error(`a UUID is 16 bytes, got ${data.length}`);
    return Buffer.from(data).toString('hex');
  }
  return uuidSchema.parse(new TextDecoder().decode(data));
}
