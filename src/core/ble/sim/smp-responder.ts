// The board's side of LE legacy pairing, Just Works (Bluetooth Core Specification v5.3, Vol 3,
// Part H, 2.3 and 3): fed one reassembled SMP PDU (L2CAP CID 6) at a time, it answers as a
// legacy-only peripheral with no input and no output would, derives the STK the controller
// encrypts the link with, and hands out the LTK the central asked for once the link is encrypted.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { SMP_CODE, SMP_FAILURE } from '../hci/codes';
import { describeFieldErrors, fieldErrors } from '../../platform/field-errors';
import { bluetoothAddressSchema } from './board-schema';
import { addressBytes, c1, s1 } from '../security-manager/crypto';

/** Pairing Request/Response fields (Vol 3, Part H, 3.5.1 and 3.5.2). */
const IO_CAPABILITY_NO_INPUT_NO_OUTPUT = 0x03;
const IO_CAPABILITY_MAX = 0x04;
const AUTH_REQ_BONDING_FLAGS = 0x03;
const BONDING = 0x01;
const KEY_DIST_ENC_KEY = 0x01;
const MIN_KEY_SIZE = 7;
const MAX_KEY_SIZE = 16;
const PAIRING_PDU_LENGTH = 7;
const VALUE_PDU_LENGTH = 17;

const peerSchema = z.object({
  address: bluetoothAddressSchema,
  type: z.enum(['public', 'random']),
});
const optionsSchema = z.object({
  initiator: peerSchema,
  responder: peerSchema,
  pairing: z.enum(['justWorks', 'refuse']).default('justWorks'),
  random: z.custom<(bytes: number) => Uint8Array>((v) => typeof v === 'function', {
    message: 'must be a function (bytes) => Uint8Array',
  }),
});

export interface SmpResponderOptions {
  initiator: { address: string; type: 'public' | 'random' }; // "aa:bb:cc:dd:ee:ff"
  responder: { address: string; type: 'public' | 'random' };
  /** 'justWorks' (default) or 'refuse' (answers Pairing Not Supported, for fault tests). */
  pairing?: 'justWorks' | 'refuse';
  random?: (bytes: number) => Uint8Array; // seeded in tests; node crypto by default
}

export type SmpState = 'idle' | 'pairing' | 'paired' | 'failed';

/** What the pairing so far has settled; the phase says which PDU comes next. */
interface Exchange {
  phase: 'awaitConfirm' | 'awaitRandom';
  preq: Uint8Array;
  pres: Uint8Array;
  keySize: number;
  /** The responder key distribution both sides agreed on. */
  responderKeys: number;
  /** Both sides asked to bond. */
  bonding: boolean;
  mconfirm?: Uint8Array;
  srand?: Uint8Array;
}

/** A legacy LTK the board handed out, named by its EDIV and Rand. */
export interface BoardBond {
  ltk: Uint8Array;
  ediv: number;
  rand: Uint8Array;
}

/** The outcome of a completed pairing: the STK now, the keys to distribute later. */
interface Paired {
  stk: Uint8Array;
  keys: Uint8Array[];
  /** What the board keeps when both sides bond and its LTK is handed out. */
  bond?: BoardBond;
}

/** A key cut to the negotiated size: the most significant octets beyond it are zero (Vol 3, Part H, 2.3.4). */
function masked(key: Uint8Array, keySize: number): Uint8Array {
  return key.map((byte, i) => (i < keySize ? byte : 0));
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export class SmpResponder {
  private readonly options: z.output<typeof optionsSchema>;
  private readonly ia: Uint8Array;
  private readonly ra: Uint8Array;
  /** Just Works: the temporary key is zero (Vol 3, Part H, 2.3.5.2). */
  private readonly tk = new Uint8Array(16);
  private current: SmpState = 'idle';
  private reason: number | undefined;
  private exchange: Exchange | undefined;
  private result: Paired | undefined;

  constructor(options: SmpResponderOptions) {
    const parsed = optionsSchema.safeParse({
      ...options,
      random: options.random ?? ((bytes: number) => new Uint8Array(randomBytes(bytes))),
    });
    if (!parsed.success)
      throw new Error(`SMP responder options: ${describeFieldErrors(fieldErrors(parsed.error))}`);
    this.options = parsed.data;
    this.ia = addressBytes(parsed.data.initiator.address);
    this.ra = addressBytes(parsed.data.responder.address);
  }

  get state(): SmpState {
    return this.current;
  }

  /** The reason code of the Pairing Failed sent or received, while the state is 'failed'. */
  get failure(): number | undefined {
    return this.reason;
  }

  /** The STK once both randoms are exchanged and the confirm checked, else undefined. */
  get stk(): Uint8Array | undefined {
    return this.result?.stk;
  }

  /** The bond this pairing makes, once paired: only when both sides asked to bond. */
  get bond(): BoardBond | undefined {
    return this.result?.bond;
  }

  /**
   * After the link is encrypted: Encryption Information and Central Identification if the
   * central asked for the board's encryption key in its Pairing Request; nothing before pairing
   * completes.
   */
  keyDistribution(): Uint8Array[] {
    return this.result?.keys ?? [];
  }

  /** One SMP PDU from the central; returns the PDUs the board sends back (maybe none). */
  handle(pdu: Uint8Array): Uint8Array[] {
    const code = pdu[0];
    switch (code) {
      case SMP_CODE.pairingRequest:
        return this.onPairingRequest(pdu);
      case SMP_CODE.pairingConfirm:
        return this.onPairingConfirm(pdu);
      case SMP_CODE.pairingRandom:
        return this.onPairingRandom(pdu);
      case SMP_CODE.pairingFailed:
        return this.onPairingFailed(pdu);
      case SMP_CODE.pairingResponse:
      case SMP_CODE.encryptionInformation:
      case SMP_CODE.centralIdentification:
      case SMP_CODE.identityInformation:
      case SMP_CODE.identityAddressInformation:
      case SMP_CODE.signingInformation:
        // The central's own command, or keys from a central the board asked for none.
        return this.fail(SMP_FAILURE.unspecifiedReason);
      case SMP_CODE.securityRequest:
      case SMP_CODE.pairingPublicKey:
      case SMP_CODE.pairingDhKeyCheck:
      case SMP_CODE.keypressNotification:
        // The peripheral's own request and the Secure Connections commands, beyond a
        // legacy-only board.
        return this.fail(SMP_FAILURE.commandNotSupported);
      default:
        // An empty PDU has no command to answer, and a reserved code is ignored (Vol 3, Part H, 3.3).
        return [];
    }
  }

  private onPairingRequest(pdu: Uint8Array): Uint8Array[] {
    // A new request is welcome unless a pairing is under way.
    if (this.current === 'pairing') return this.fail(SMP_FAILURE.unspecifiedReason);
    this.exchange = undefined;
    this.result = undefined;
    this.reason = undefined;
    if (this.options.pairing === 'refuse') return this.fail(SMP_FAILURE.pairingNotSupported);
    if (pdu.length !== PAIRING_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const [, ioCapability = 0, oobFlag = 0, authReq = 0, maxKeySize = 0, , responderKeys = 0] = pdu;
    if (ioCapability > IO_CAPABILITY_MAX || oobFlag > 1 || maxKeySize > MAX_KEY_SIZE)
      return this.fail(SMP_FAILURE.invalidParameters);
    const keySize = Math.min(maxKeySize, MAX_KEY_SIZE);
    if (keySize < MIN_KEY_SIZE) return this.fail(SMP_FAILURE.encryptionKeySize);
    const agreedKeys = responderKeys & KEY_DIST_ENC_KEY;
    const bonding = (authReq & AUTH_REQ_BONDING_FLAGS) === BONDING;
    // Legacy and Just Works whatever was asked: no MITM, no Secure Connections, no keypress;
    // bonding as the central asked, no keys wanted from it.
    const pres = Uint8Array.of(
      SMP_CODE.pairingResponse,
      IO_CAPABILITY_NO_INPUT_NO_OUTPUT,
      0x00,
      bonding ? BONDING : 0x00,
      MAX_KEY_SIZE,
      0x00,
      agreedKeys,
    );
    this.exchange = {
      phase: 'awaitConfirm',
      preq: Uint8Array.from(pdu),
      pres,
      keySize,
      responderKeys: agreedKeys,
      bonding,
    };
    this.current = 'pairing';
    return [pres];
  }

  private onPairingConfirm(pdu: Uint8Array): Uint8Array[] {
    const exchange = this.exchange;
    if (this.current !== 'pairing' || exchange?.phase !== 'awaitConfirm')
      return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== VALUE_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const srand = this.random(16);
    exchange.mconfirm = Uint8Array.from(pdu.subarray(1));
    exchange.srand = srand;
    exchange.phase = 'awaitRandom';
    return [Uint8Array.of(SMP_CODE.pairingConfirm, ...this.confirm(exchange, srand))];
  }

  private onPairingRandom(pdu: Uint8Array): Uint8Array[] {
    const exchange = this.exchange;
    if (
      this.current !== 'pairing' ||
      exchange?.phase !== 'awaitRandom' ||
      !exchange.mconfirm ||
      !exchange.srand
    )
      return this.fail(SMP_FAILURE.unspecifiedReason);
    if (pdu.length !== VALUE_PDU_LENGTH) return this.fail(SMP_FAILURE.invalidParameters);
    const mrand = Uint8Array.from(pdu.subarray(1));
    if (!equalBytes(this.confirm(exchange, mrand), exchange.mconfirm))
      return this.fail(SMP_FAILURE.confirmValueFailed);
    const stk = masked(s1(this.tk, exchange.srand, mrand), exchange.keySize);
    this.result = { stk, ...this.distributedKeys(exchange) };
    this.exchange = undefined;
    this.current = 'paired';
    return [Uint8Array.of(SMP_CODE.pairingRandom, ...exchange.srand)];
  }

  private onPairingFailed(pdu: Uint8Array): Uint8Array[] {
    // The central gives up, nothing is sent back (Vol 3, Part H, 3.5.5). After the board's
    // random it may still: that is where the central checks the board's confirm.
    if (this.current !== 'pairing' && this.current !== 'paired') return [];
    this.fail(pdu[1] ?? SMP_FAILURE.unspecifiedReason);
    return [];
  }

  /** Ends the pairing: no key survives a failure. */
  private fail(reason: number): Uint8Array[] {
    this.current = 'failed';
    this.reason = reason;
    this.exchange = undefined;
    this.result = undefined;
    return [Uint8Array.of(SMP_CODE.pairingFailed, reason)];
  }

  private confirm(exchange: Exchange, r: Uint8Array): Uint8Array {
    const { initiator, responder } = this.options;
    return c1({
      k: this.tk,
      r,
      preq: exchange.preq,
      pres: exchange.pres,
      iat: initiator.type === 'random' ? 1 : 0,
      rat: responder.type === 'random' ? 1 : 0,
      ia: this.ia,
      ra: this.ra,
    });
  }

  /** Encryption Information (LTK) and Central Identification (EDIV, Rand), Vol 3, Part H, 3.6.2–3.6.3. */
  private distributedKeys(exchange: Exchange): Pick<Paired, 'keys' | 'bond'> {
    if ((exchange.responderKeys & KEY_DIST_ENC_KEY) === 0) return { keys: [] };
    const ltk = masked(this.random(16), exchange.keySize);
    const ediv = this.random(2);
    const rand = this.random(8);
    return {
      keys: [
        Uint8Array.of(SMP_CODE.encryptionInformation, ...ltk),
        Uint8Array.of(SMP_CODE.centralIdentification, ...ediv, ...rand),
      ],
      bond: exchange.bonding ? { ltk, ediv: ediv[0]! | (ediv[1]! << 8), rand } : undefined,
    };
  }

  private random(bytes: number): Uint8Array {
    const out = this.options.random(bytes);
    if (out.length !== bytes)
      throw new Error(`SMP responder options: random returned ${out.length} bytes for ${bytes}`);
    return Uint8Array.from(out);
  }
}
