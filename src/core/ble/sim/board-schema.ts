// The board description file of the simulated bench (resources/sim/*.json): what a prototype
// advertises, its GATT table, its provisioning profile, notifications, latency and faults.
// Browser-safe (zod only) so the bench page can validate a board before sending it.
import { z } from 'zod';
import { RSSI_MAX_DBM, RSSI_MIN_DBM, RSSI_RULE } from '../../bounds';
import { CHARACTERISTIC_PROPERTIES, uuidSchema } from '../port';
import { ATT_MTU, LINK_PERMISSIONS } from '../link-parameters';
import { provisioningProfileSchema } from '../provisioning-profile';
import { NUMERIC_VALUE_TYPES } from '../values/value-format';
import { bluetoothAddressSchema } from '../bluetooth-address';

const hexBytes = z
  .string()
  .regex(/^(?:[0-9a-fA-F]{2})*$/, 'must be hex bytes, e.g. "0a1b"')
  .transform((h) => h.toLowerCase());

/** A characteristic's starting value: hex bytes or UTF-8 text, exactly one. */
const initialValue = z
  .object({ hex: hexBytes.optional(), utf8: z.string().optional() })
  .strict()
  .refine((v) => (v.hex === undefined) !== (v.utf8 === undefined), 'give exactly one of hex, utf8');

const characteristicPropertySchema = z.enum(CHARACTERISTIC_PROPERTIES);

const linkPermissionSchema = z.enum(LINK_PERMISSIONS);

/** Absent accesses are open. */
const permissionsSpec = z
  .object({
    read: linkPermissionSchema.optional(),
    write: linkPermissionSchema.optional(),
    /**
     * What the link must be to read or write the Client Characteristic Configuration, as
     * Zephyr's BT_GATT_CCC permissions (a notification a central may not subscribe to).
     */
    subscribe: linkPermissionSchema.optional(),
  })
  .strict();

const characteristicSpec = z
  .object({
    uuid: uuidSchema,
    name: z.string().max(60).optional(),
    properties: z.array(characteristicPropertySchema).min(1, 'needs at least one property'),
    value: initialValue.optional(),
    /** Longest value a write may store (ATT allows 512). */
    maxLength: z.number().int().min(1).max(512).default(512),
    /** A read or write the link is not secure enough for is answered as Zephyr's GATT server does. */
    permissions: permissionsSpec.optional(),
  })
  .strict();

const serviceSpec = z
  .object({
    uuid: uuidSchema,
    name: z.string().max(60).optional(),
    characteristics: z.array(characteristicSpec).default([]),
  })
  .strict();

/** Numeric layouts a drifting reading can take: the value formats' numeric types. */
const DRIFT_TYPES = NUMERIC_VALUE_TYPES;

/** What each integer type holds; floats take any finite number. */
const DRIFT_RANGES: Partial<Record<(typeof DRIFT_TYPES)[number], [number, number]>> = {
  uint8: [0, 0xff],
  uint16le: [0, 0xffff],
  uint16be: [0, 0xffff],
  uint32le: [0, 0xffffffff],
  uint32be: [0, 0xffffffff],
  int8: [-0x80, 0x7f],
  int16le: [-0x8000, 0x7fff],
  int16be: [-0x8000, 0x7fff],
  int32le: [-0x80000000, 0x7fffffff],
  int32be: [-0x80000000, 0x7fffffff],
};

/**
 * A reading that wanders as a sensor's does: each notification moves the raw value by at most
 * `step` from the last, never leaving [min, max]; it starts at `start` (default: the middle).
 */
const driftSchema = z
  .object({
    kind: z.literal('drift'),
    type: z.enum(DRIFT_TYPES, { error: `type must be one of ${DRIFT_TYPES.join(', ')}` }),
    min: z.number(),
    max: z.number(),
    start: z.number().optional(),
    step: z.number().positive('must be more than 0'),
  })
  .strict()
  .check((ctx) => {
    const { type, min, max, start } = ctx.value;
    if (min >= max)
      ctx.issues.push({ code: 'custom', input: max, path: ['max'], message: 'must be above min' });
    if (start !== undefined && (start < min || start > max))
      ctx.issues.push({
        code: 'custom',
        input: start,
        path: ['start'],
        message: `must be between min (${min}) and max (${max})`,
      });
    const range = DRIFT_RANGES[type];
    for (const field of ['min', 'max'] as const)
      if (range && (ctx.value[field] < range[0] || ctx.value[field] > range[1]))
        ctx.issues.push({
          code: 'custom',
          input: ctx.value[field],
          path: [field],
          message: `does not fit ${type} (${range[0]}…${range[1]})`,
        });
  });

/**
 * What a notification carries: a counter (little-endian), a drifting reading, random bytes or
 * fixed bytes.
 */
const payloadSchema = z.discriminatedUnion('kind', [
  driftSchema,
  z
    .object({
      kind: z.literal('counter'),
      bytes: z.union([z.literal(1), z.literal(2), z.literal(4)]).default(1),
    })
    .strict(),
  z.object({ kind: z.literal('random'), bytes: z.number().int().min(1).max(244) }).strict(),
  z
    .object({
      kind: z.literal('fixed'),
      hex: hexBytes.refine((h) => h.length > 0, 'must not be empty'),
    })
    .strict(),
]);

const notificationTarget = {
  /** Optional when the characteristic UUID is unique on the board. */
  service: uuidSchema.optional(),
  characteristic: uuidSchema,
  payload: payloadSchema,
};

const notificationsSpec = z
  .object({
    /** Sent every `intervalMs` while a central is subscribed. */
    periodic: z
      .array(
        z
          .object({ ...notificationTarget, intervalMs: z.number().int().min(10).max(3_600_000) })
          .strict(),
      )
      .default([]),
    /** Sent when the bench presses the button (`SimulatedBench.pressButton`). */
    buttons: z
      .array(
        z
          .object({
            id: z
              .string()
              .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be lowercase letters, digits and dashes')
              .default('button'),
            ...notificationTarget,
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

const rssiSpec = z
  .object({
    mean: z.number().min(RSSI_MIN_DBM, RSSI_RULE).max(RSSI_MAX_DBM, RSSI_RULE).default(-60),
    /** Standard deviation of the Gaussian noise, dB. */
    noise: z.number().min(0).max(30).default(3),
  })
  .strict();

const advertisingSpec = z
  .object({
    /** Always advertised, next to the provisioning or product service. */
    serviceUuids: z.array(uuidSchema).default([]),
    manufacturerData: hexBytes.optional(),
    intervalMs: z.number().int().min(20).max(10_240).default(100),
    txPower: z.number().int().min(-127).max(20).optional(),
    rssi: rssiSpec.prefault({}),
    connectable: z.boolean().default(true),
  })
  .strict();

const latencySpec = z
  .object({
    connectMs: z.number().min(0).max(60_000).default(30),
    perOperationMs: z.number().min(0).max(60_000).default(5),
    /** Up to this much is added at random (seeded) to every latency. */
    jitterMs: z.number().min(0).max(60_000).default(0),
  })
  .strict();

export const faultsSchema = z
  .object({
    /** `true` refuses every connection; a number is the probability per attempt. */
    refuseConnection: z.union([z.boolean(), z.number().min(0).max(1)]).default(false),
    /** The link drops, unanswered, during the matching write after `afterWrites` such writes. Fires once. */
    dropLinkDuringWrite: z
      .object({
        characteristic: uuidSchema.optional(),
        afterWrites: z.number().int().min(0).default(0),
      })
      .strict()
      .optional(),
    /**
     * The board refuses reads or writes of a characteristic (any, if none is named) with this ATT
     * error code, as firmware with a bug or a stricter rule would: for trying how the tool and a
     * scenario report each code.
     */
    refuseAccess: z
      .object({
        characteristic: uuidSchema.optional(),
        operation: z.enum(['read', 'write']),
        code: z.number().int().min(0x01).max(0xff),
      })
      .strict()
      .optional(),
    /** Every latency is multiplied by this; on the air each data PDU takes this many events. */
    slowLink: z.number().min(1).max(1000).default(1),
    /** The board answers the next links' Pairing Requests with Pairing Not Supported. */
    refusePairing: z.boolean().default(false),
    /** The board forgot its bonds (a flash erase): a bonded central's key is missing to it. */
    forgetBonds: z.boolean().default(false),
  })
  .strict();

const provisioningSpec = z
  .object({
    /** A profile id from resources/profiles, or a whole profile. */
    profile: z.union([
      z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a profile id'),
      provisioningProfileSchema,
    ]),
    /**
     * For profiles whose firmware derives the PSDI: the PSDI, where `{address}` stands for the
     * board's address as 12 uppercase hex digits. Default `{address}`.
     */
    derivedPsdi: z.string().min(1).optional(),
    /** From commit to the link dropping and the board advertising as the product. */
    rebootMs: z.number().int().min(0).max(60_000).default(200),
  })
  .strict();

/**
 * An MCUmgr server (docs/mcumgr/protocol.md) with two image slots under MCUboot, a settings
 * store kept in flash, and its own faults.
 */
const mcumgrSpec = z
  .object({
    /** The image the board runs out of the box, as MCUmgr lists it. */
    version: z
      .string()
      .regex(/^\d+\.\d+\.\d+(?:\.\d+)?$/, 'must be a version, e.g. "1.0.0"')
      .default('1.0.0'),
    /** OS parameters' `buf_size`: the longest request the board takes, header included. */
    bufferSize: z.number().int().min(64).max(8192).default(2475),
    bufferCount: z.number().int().min(1).max(16).default(4),
    /**
     * Whether the OS group answers "MCUmgr parameters" (command 6), as Zephyr with
     * CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS (smp_svr's overlay-bt.conf sets it); without it "not
     * supported", and an upload keeps one request in flight.
     */
    params: z.boolean().default(true),
    /** Each image slot's size; a longer upload is refused as too large. */
    slotSize: z
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024)
      .default(256 * 1024),
    /**
     * The image group's slot info (command 6), as newer Zephyr answers it with
     * CONFIG_MCUMGR_GRP_IMG_SLOT_INFO; without it "not supported", as Zephyr 3.4 does.
     */
    slotInfo: z.boolean().default(false),
    /**
     * What the link must be to write the SMP characteristic and subscribe to it: an
     * authenticated one (`authenticate`) as Zephyr's CONFIG_MCUMGR_TRANSPORT_BT_AUTHEN asks.
     */
    security: linkPermissionSchema.default('open'),
    /** From a reset request to the board dropping the link and booting. */
    resetMs: z.number().int().min(0).max(60_000).default(300),
    /** Settings in flash at first power-up, as UTF-8 text. */
    settings: z.record(z.string().min(1).max(255), z.string()).default({}),
    /**
     * Firmware that reads a product identity from these settings keys at boot: with all four
     * saved, the board advertises `serviceUuid` and serves the PSDI read-only at
     * `psdiServiceUuid` / `psdiCharacteristicUuid`, as a provisioned board does. UUID values
     * are text (any UUID form) or 16 bytes; the PSDI is UTF-8.
     */
    identityKeys: z
      .object({
        serviceUuid: z.string().min(1).max(255),
        psdiServiceUuid: z.string().min(1).max(255),
        psdiCharacteristicUuid: z.string().min(1).max(255),
        psdi: z.string().min(1).max(255),
      })
      .strict()
      .optional(),
    faults: z
      .object({
        /** The board stores one byte of each upload wrong: the image check at the end refuses it. */
        corruptUpload: z.boolean().default(false),
        /** A test image crashes before it is confirmed, so MCUboot reverts to the old one. */
        testImageFails: z.boolean().default(false),
        /** Firmware without a settings handler for the keys written: every write is refused. */
        refuseSettingsWrites: z.boolean().default(false),
        /** The board saves its settings, then resets before the answer goes out. */
        saveAnswerLost: z.boolean().default(false),
        /**
         * Firmware whose settings handler exports nothing: a save is answered but keeps none of
         * the keys, so the board comes back blank from its reset.
         */
        settingsNotKept: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export const boardSpecSchema = z
  .object({
    /** The local name; with `count`, `{n}` is the board's number (else " {n}" is appended). */
    name: z.string().trim().min(1, 'is required').max(29),
    /** The first board's address; with `count` the others count up. Generated from the name if absent. */
    address: bluetoothAddressSchema.optional(),
    addressType: z.enum(['public', 'random']).default('random'),
    /** Identical boards on a tray. */
    count: z.number().int().min(1).max(1000).default(1),
    advertising: advertisingSpec.prefault({}),
    gatt: z.array(serviceSpec).default([]),
    provisioning: provisioningSpec.optional(),
    mcumgr: mcumgrSpec.optional(),
    notifications: notificationsSpec.prefault({}),
    latency: latencySpec.prefault({}),
    mtu: z.number().int().min(ATT_MTU.min).max(ATT_MTU.max).default(247),
    /**
     * How the board answers a Pairing Request: LE legacy Just Works, or Pairing Not Supported
     * (to see how the tool copes with a board that will not pair).
     */
    pairing: z.enum(['justWorks', 'refuse']).default('justWorks'),
    /** How the board asks for security (docs/decisions.md, "Pairing on the simulated boards"). */
    security: z
      .object({
        /** A Security Request (bonding) once the link is up, as Zephyr's bt_conn_set_security. */
        securityRequest: z.boolean().default(false),
        /**
         * LE legacy pairing only; LE Secure Connections when the central offers it, legacy
         * otherwise; or Secure Connections only (Zephyr's CONFIG_BT_SMP_SC_ONLY).
         */
        mode: z.enum(['legacy', 'sc', 'sc-only']).default('legacy'),
        /** What the board can show or take: a board that shows a passkey shows `passkey`. */
        ioCapability: z
          .enum(['noInputNoOutput', 'displayOnly', 'displayYesNo'])
          .default('noInputNoOutput'),
        /** The six digits a displaying board shows (Zephyr's CONFIG_BT_FIXED_PASSKEY); random if absent. */
        passkey: z.number().int().min(0).max(999_999).optional(),
        bonding: z
          .object({
            /** How many centrals the board keeps keys for (CONFIG_BT_MAX_PAIRED); a new one beyond is refused. */
            maxBonds: z.number().int().min(1).max(64).default(8),
            /**
             * Whether a bonded central may pair again without MITM. Zephyr refuses it
             * (CONFIG_BT_SMP_ALLOW_UNAUTH_OVERWRITE off); the older boards here allow it.
             */
            allowUnauthOverwrite: z.boolean().default(true),
          })
          .strict()
          .prefault({}),
        /**
         * Zephyr's CONFIG_BT_PRIVACY: the board advertises and connects under a resolvable
         * private address made from its IRK, a new one every `rotateSeconds`
         * (CONFIG_BT_RPA_TIMEOUT) and at every boot, and hands out the IRK and its identity address to a central
         * that asks for them in pairing. The IRK is the given one, else one fixed per board.
         */
        privacy: z
          .object({
            rotateSeconds: z.number().int().min(1).max(3600).default(900),
            irk: hexBytes.refine((h) => h.length === 32, 'must be 16 bytes of hex').optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .prefault({}),
    faults: faultsSchema.prefault({}),
  })
  .strict();

export const boardFileSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    boards: z.array(boardSpecSchema).min(1, 'needs at least one board'),
  })
  .strict();

export type BoardSpec = z.output<typeof boardSpecSchema>;
export type BoardSpecInput = z.input<typeof boardSpecSchema>;
export type BoardFaults = z.output<typeof faultsSchema>;
export type BoardFaultsInput = z.input<typeof faultsSchema>;
export type McumgrSpec = z.output<typeof mcumgrSpec>;
export type NotificationPayload = z.output<typeof payloadSchema>;

/** `boards[0].gatt[1].uuid` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(file)';
}

/**
 * One line per problem, `path: message`. Of a union's branches it reports the one that got
 * furthest (the branch whose type matched), not every branch's complaint.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  base: readonly PropertyKey[] = [],
): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length) {
      const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
      lines.push(...describeIssues(best, path));
    } else if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        lines.push(`${formatPath([...path, key])}: is not a known field`);
    } else {
      lines.push(`${formatPath(path)}: ${issue.message}`);
    }
  }
  return lines;
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((i) => (i.code === 'invalid_type' ? -1 : i.path.length + 1)));
}
