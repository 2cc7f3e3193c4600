// A connected board's link as the controller reports it (interval, latency, supervision timeout,
// PHY, security, RSSI) and what a person may ask of it, with the Core Specification's ranges
// (v5.3, Vol 4, Part E, 7.8.18 LE Connection Update, 7.8.49 LE Set PHY). Browser-safe (zod
// only): the contract, the BLE process and the bench page share these definitions.
import { z } from 'zod';

/**
 * What the link must be for an access to a value, as Zephyr's security levels
 * (docs/decisions.md, "Pairing on the simulated boards"): any link; encrypted (`encrypt`, or
 * `encrypted` as board files and profiles said first); encrypted with an authenticated (MITM)
 * key; an authenticated LE Secure Connections key of 16 octets.
 */
export const LINK_PERMISSIONS = ['open', 'encrypted', 'encrypt', 'authenticate', 'sc'] as const;
export type LinkPermission = (typeof LINK_PERMISSIONS)[number];

export const PHYS = ['1M', '2M', 'coded'] as const;
export type Phy = (typeof PHYS)[number];

/** The PHY codes of LE PHY Update Complete and LE Read PHY (7.7.65.12). */
export const PHY_CODE: Record<Phy, number> = { '1M': 0x01, '2M': 0x02, coded: 0x03 };

export function phyOfCode(code: number): Phy | undefined {
  return PHYS.find((p) => PHY_CODE[p] === code);
}

/**
 * LE security mode 1 (Vol 3, Part C, 10.2.1): 1 no security, 2 encrypted after unauthenticated
 * pairing (Just Works, all noble does), 3 authenticated, 4 authenticated LE Secure Connections.
 */
export const SECURITY_LEVELS = {
  1: 'Level 1 · open',
  2: 'Level 2 · encrypted (Just Works)',
  3: 'Level 3 · encrypted, authenticated',
  4: 'Level 4 · LE Secure Connections',
} as const;

/**
 * How a link is secured, as its pairing or its bond left it (docs/decisions.md, "Pairing as a
 * phone does").
 */
export const linkSecuritySchema = z.object({
  encrypted: z.boolean(),
  /** The key encrypting the link: from LE Secure Connections or LE legacy pairing. */
  key: z.enum(['sc', 'legacy']).optional(),
  /** The key came from a MITM-protected method (passkey, numeric comparison, OOB). */
  authenticated: z.boolean(),
  /** Octets, 7–16. */
  keySize: z.number().int().min(7).max(16).optional(),
  method: z.enum(['justWorks', 'numericComparison', 'passkeyEntry', 'oob']).optional(),
  bonded: z.boolean(),
  /**
   * The board's identity address, once its pairing handed one out or its bond holds one: what
   * finds it again under a new private address.
   */
  identityAddress: z.string().optional(),
  /** Encrypted with a stored bond's key on this link, without pairing on it. */
  fromBond: z.boolean().optional(),
});
export type LinkSecurity = z.infer<typeof linkSecuritySchema>;

/** The LE security mode 1 level a link's security gives (Vol 3, Part C, 10.2.1). */
export function securityLevelOf(security: LinkSecurity | undefined): 1 | 2 | 3 | 4 {
  if (!security?.encrypted) return 1;
  if (!security.authenticated) return 2;
  return security.key === 'sc' && security.keySize === 16 ? 4 : 3;
}

export const linkInfoSchema = z.object({
  /** The negotiated ATT MTU. */
  mtu: z.number(),
  intervalMs: z.number(),
  /** Peripheral latency: connection events the board may skip. */
  latency: z.number(),
  supervisionTimeoutMs: z.number(),
  txPhy: z.enum(PHYS),
  rxPhy: z.enum(PHYS),
  /**
   * Payload octets of the central's link-layer data PDUs: 27 until a Data Length Update, up to
   * 251 (Vol 6, Part B, 4.5.10); absent where the controller is not visible.
   */
  dataLength: z.number().int().optional(),
  securityLevel: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  /** What the level comes from; absent where the binding shows no pairing (noble's OS bindings). */
  security: linkSecuritySchema.optional(),
  /** dBm from the last Read RSSI; absent until one was read. */
  rssi: z.number().optional(),
});
export type LinkInfo = z.infer<typeof linkInfoSchema>;

/**
 * The ATT MTU a client may ask for: LE's minimum 23 (Vol 3, Part F, 3.2.8) up to 517, one
 * 512-byte attribute value with its Read Response or Write Request header (and what board files
 * allow).
 */
export const ATT_MTU = { min: 23, max: 517 } as const;

export const mtuSchema = z
  .number()
  .int('must be a whole number of bytes')
  .min(ATT_MTU.min, `must be at least ${ATT_MTU.min} (the LE minimum)`)
  .max(ATT_MTU.max, `must be at most ${ATT_MTU.max}`);

/** Interval 7.5 ms to 4 s in steps of 1.25 ms (0x0006–0x0C80). */
const INTERVAL_MS = { min: 7.5, max: 4000, step: 1.25 } as const;
/** Peripheral latency 0–499 events (0x0000–0x01F3). */
const LATENCY_MAX = 499;
/** Supervision timeout 100 ms to 32 s in steps of 10 ms (0x000A–0x0C80). */
const SUPERVISION_TIMEOUT_MS = { min: 100, max: 32_000, step: 10 } as const;

const interval = z
  .number()
  .min(INTERVAL_MS.min, `must be at least ${INTERVAL_MS.min} ms`)
  .max(INTERVAL_MS.max, `must be at most ${INTERVAL_MS.max} ms`)
  .refine((ms) => Number.isInteger(ms / INTERVAL_MS.step), 'must be a multiple of 1.25 ms');

/**
 * New connection parameters. The spec's own rule binds them together: the supervision timeout
 * must be longer than (1 + latency) × the maximum interval × 2, or the board could be lost
 * while it is allowed to sleep.
 */
export const connectionParametersSchema = z
  .object({
    minIntervalMs: interval,
    maxIntervalMs: interval,
    latency: z
      .number()
      .int('must be a whole number of events')
      .min(0, 'must be 0 or more')
      .max(LATENCY_MAX, `must be at most ${LATENCY_MAX}`),
    supervisionTimeoutMs: z
      .number()
      .min(SUPERVISION_TIMEOUT_MS.min, `must be at least ${SUPERVISION_TIMEOUT_MS.min} ms`)
      .max(SUPERVISION_TIMEOUT_MS.max, `must be at most ${SUPERVISION_TIMEOUT_MS.max} ms`)
      .refine(
        (ms) => Number.isInteger(ms / SUPERVISION_TIMEOUT_MS.step),
        'must be a multiple of 10 ms',
      ),
  })
  .check((ctx) => {
    const p = ctx.value;
    if (p.minIntervalMs > p.maxIntervalMs)
      ctx.issues.push({
        code: 'custom',
        input: p.maxIntervalMs,
        path: ['maxIntervalMs'],
        message: `must be at least the minimum interval (${p.minIntervalMs} ms)`,
      });
    const floor = (1 + p.latency) * p.maxIntervalMs * 2;
    if (p.supervisionTimeoutMs <= floor)
      ctx.issues.push({
        code: 'custom',
        input: p.supervisionTimeoutMs,
        path: ['supervisionTimeoutMs'],
        message: `must be more than (1 + latency) × maximum interval × 2 = ${floor} ms`,
      });
  });
type ConnectionParameters = z.infer<typeof connectionParametersSchema>;

/** The PHY asked for each way; the controller and the board settle on one they both have. */
export const phyRequestSchema = z.object({ tx: z.enum(PHYS), rx: z.enum(PHYS) });
type PhyRequest = z.infer<typeof phyRequestSchema>;

/** LE Set Data Length's TxOctets (Vol 4, Part E, 7.8.33): 27 to 251 payload octets a PDU. */
export const DATA_LENGTH = { min: 27, max: 251 } as const;

export const dataLengthSchema = z
  .number()
  .int('must be a whole number of octets')
  .min(DATA_LENGTH.min, `must be at least ${DATA_LENGTH.min}`)
  .max(DATA_LENGTH.max, `must be at most ${DATA_LENGTH.max}`);

/** IO capabilities a station can claim when it pairs (Vol 3, Part H, 2.3.2). */
export const IO_CAPABILITY_NAMES = [
  'displayOnly',
  'displayYesNo',
  'keyboardOnly',
  'noInputNoOutput',
  'keyboardDisplay',
] as const;

/** How to pair: each field left out keeps the station's setting for the link. */
export const pairRequestSchema = z.object({
  io: z.enum(IO_CAPABILITY_NAMES).optional(),
  bond: z.boolean().optional(),
  mitm: z.boolean().optional(),
  sc: z.boolean().optional(),
  /**
   * Whether the station itself needs MITM, and stops a pairing the two IO capabilities leave
   * with Just Works. Left out, a request that asks for MITM needs it (the link card's box, a
   * profile's level); a dry run as a phone asks without needing it, and leaves the board to
   * judge the key (docs/decisions/ble-and-hci.md, "Pairing as the capabilities allow").
   */
  requireMitm: z.boolean().optional(),
});
type PairRequest = z.infer<typeof pairRequestSchema>;

/**
 * What a pairing asks of the person at the station (docs/decisions.md, "Pairing as a phone
 * does"): type the passkey the board shows, say whether the board shows this number, or show a
 * passkey to type on the board. `deviceId` is the board's; `timeoutMs` the SMP's limit and
 * `remainingMs` what was left of it when this was sent. One prompt is sent again each time its
 * `state` moves: `answered` once someone answered it (every window closes its input), then
 * `paired` or `failed` with the pairing's outcome in words (`message`).
 */
export const pairingPromptSchema = z.intersection(
  z.object({
    id: z.string(),
    deviceId: z.string(),
    connectionId: z.string().optional(),
    /** The board as the person knows it: its advertised name, else its address. */
    board: z.string().optional(),
    timeoutMs: z.number(),
    remainingMs: z.number(),
    state: z.enum(['open', 'answered', 'paired', 'failed']),
    message: z.string().optional(),
    /**
     * The pairing runs on a provisioning run's link: the run says a failure in its own result,
     * so a failed prompt leaves with it rather than waiting for Dismiss over every window
     * (docs/decisions/app-and-ui.md, "Paired, in the flow").
     */
    inRun: z.boolean().optional(),
  }),
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('enterPasskey') }),
    z.object({ kind: z.literal('confirmNumber'), value: z.number().int() }),
    z.object({ kind: z.literal('displayPasskey'), passkey: z.number().int() }),
  ]),
);

export type PairingPrompt = z.infer<typeof pairingPromptSchema>;

/** The person's answer: the passkey typed, or whether the board shows the same number. */
export const pairingAnswerSchema = z.object({
  deviceId: z.string().min(1, 'is empty').max(256, 'must be at most 256 characters'),
  passkey: z
    .number()
    .int('must be six digits')
    .min(0, 'must be six digits')
    .max(999_999, 'must be six digits')
    .optional(),
  confirm: z.boolean().optional(),
});

/** A pair request's options, without its kind. */
export function pairOptions({ io, bond, mitm, sc, requireMitm }: PairRequest): PairRequest {
  return { io, bond, mitm, sc, requireMitm };
}

/** What can be asked of a link; each is one HCI procedure (or the station's SMP for `pair`). */
export type LinkRequest =
  | { kind: 'connectionParameters'; parameters: ConnectionParameters }
  | { kind: 'phy'; phy: PhyRequest }
  /** Octets asked for; the controller settles on what it and the board take, at most this. */
  | { kind: 'dataLength'; octets: number }
  | ({ kind: 'pair' } & PairRequest)
  | { kind: 'rssi' };
