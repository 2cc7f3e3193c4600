// What a simulated board's SMP responder is built from: the board file's security block and
// bonds (docs/decisions/simulated-bench.md, "Pairing on the simulated boards"), checked once here.
import { z } from 'zod';
import { bluetoothAddressSchema } from '../bluetooth-address';

const peerSchema = z.object({
  address: bluetoothAddressSchema,
  type: z.enum(['public', 'random']),
});
export const smpOptionsSchema = z.object({
  initiator: peerSchema,
  responder: peerSchema,
  pairing: z.enum(['justWorks', 'refuse']).default('justWorks'),
  mode: z.enum(['legacy', 'sc', 'sc-only']).default('legacy'),
  io: z.enum(['noInputNoOutput', 'displayOnly', 'displayYesNo']).default('noInputNoOutput'),
  passkey: z.number().int().min(0).max(999_999).optional(),
  bonded: z.custom<BoardBond>().optional(),
  allowUnauthOverwrite: z.boolean().default(true),
  bondTableFull: z.boolean().default(false),
  identity: z.custom<BoardIdentity>().optional(),
  random: z.custom<(bytes: number) => Uint8Array>((v) => typeof v === 'function', {
    message: 'must be a function (bytes) => Uint8Array',
  }),
});

export interface SmpResponderOptions {
  initiator: { address: string; type: 'public' | 'random' }; // "aa:bb:cc:dd:ee:ff"
  responder: { address: string; type: 'public' | 'random' };
  /** 'justWorks' (default: pair as `mode` and `io` allow) or 'refuse' (answers Pairing Not Supported). */
  pairing?: 'justWorks' | 'refuse';
  mode?: 'legacy' | 'sc' | 'sc-only';
  io?: 'noInputNoOutput' | 'displayOnly' | 'displayYesNo';
  /** The passkey a displaying board shows; random per pairing when absent. */
  passkey?: number;
  /** The board's bond with this central, if any. */
  bonded?: BoardBond;
  /** False: a bonded central pairing again by Just Works is refused, as Zephyr does. */
  allowUnauthOverwrite?: boolean;
  /** The board keeps no more bonds: a bonding pairing with a new central is refused. */
  bondTableFull?: boolean;
  /** A board with privacy hands these out when asked (Identity Information, Identity Address). */
  identity?: BoardIdentity;
  random?: (bytes: number) => Uint8Array; // seeded in tests; node crypto by default
}

/** A board's IRK (least significant octet first, as SMP carries it) and identity address. */
export interface BoardIdentity {
  irk: Uint8Array;
  address: string;
  type: 'public' | 'random';
}

/** A legacy LTK the board handed out, named by its EDIV and Rand. */
export interface BoardBond {
  ltk: Uint8Array;
  ediv: number;
  rand: Uint8Array;
  authenticated: boolean;
  sc: boolean;
  keySize: number;
  /**
   * The central's identity, when it handed one out after the board's keys (Identity Information
   * and Identity Address Information, Vol 3, Part H, 3.6.4–3.6.5): the bond table's record of who
   * the central is, whatever address it uses.
   */
  central?: BoardIdentity;
}
