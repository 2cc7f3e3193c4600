// LE legacy pairing on the simulated boards: the spec's sample data for c1 and s1, the board's
// SMP responder PDU by PDU with each failure, and two independent centrals pairing against it:
// noble's own (lib/hci-socket/smp.js) and ble-host's.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SMP_CODE, SMP_FAILURE } from '../../../src/core/ble/hci/codes';
import { SeededRandom } from '../../../src/core/ble/sim/random';
import { c1, e, s1 } from '../../../src/core/ble/security-manager/crypto';
import { SmpResponder, type SmpResponderOptions } from '../../../src/core/ble/sim/smp-responder';

/** The spec writes values most significant octet first; SMP carries them the other way. */
const spec = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex')).reverse();
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');
const zeros = new Uint8Array(16);

describe('legacy pairing functions (Vol 3, Part H, 2.2)', () => {
  it('c1 gives the confirm value of the sample data (2.2.3)', () => {
    const confirm = c1({
      k: zeros,
      r: spec('5783d52156ad6f0e6388274ec6702ee0'),
      preq: spec('07071000000101'),
      pres: spec('05000800000302'),
      iat: 1,
      rat: 0,
      ia: spec('a1a2a3a4a5a6'),
      ra: spec('b1b2b3b4b5b6'),
    });
    expect(hex(Uint8Array.from(confirm).reverse())).toBe('1e1e3fef878988ead2a74dc5bef13b86');
  });

  it('s1 gives the STK of the sample data (2.2.4)', () => {
    const stk = s1(
      zeros,
      spec('000f0e0d0c0b0a091122334455667788'),
      spec('010203040506070899aabbccddeeff00'),
    );
    expect(hex(Uint8Array.from(stk).reverse())).toBe('9a1fe1f0e8b0f49b5b4216ae796da062');
  });

  it('e is AES-128 with both operands most significant octet first', () => {
    // FIPS-197 appendix C.1, the AES-128 example, written in SMP order.
    const key = spec('000102030405060708090a0b0c0d0e0f');
    const block = spec('00112233445566778899aabbccddeeff');
    expect(hex(Uint8Array.from(e(key, block)).reverse())).toBe('69c4e0d86a7b0430d8cdb78070b4c55a');
  });

  it('names the operand of the wrong length', () => {
    expect(() => s1(zeros, new Uint8Array(8), zeros)).toThrow('r1: must be 16 bytes, got 8');
    expect(() =>
      c1({
        k: zeros,
        r: zeros,
        preq: new Uint8Array(6),
        pres: new Uint8Array(7),
        iat: 0,
        rat: 0,
        ia: new Uint8Array(6),
        ra: new Uint8Array(6),
      }),
    ).toThrow('preq: must be 7 bytes');
  });
});

const CENTRAL = { address: '11:22:33:44:55:66', type: 'public' } as const;
const BOARD = { address: 'c4:7f:51:00:00:01', type: 'random' } as const;
const IA = spec('112233445566');
const RA = spec('c47f51000001');

function responder(options: Partial<SmpResponderOptions> = {}, seed = 7): SmpResponder {
  const random = new SeededRandom(seed);
  return new SmpResponder({
    initiator: CENTRAL,
    responder: BOARD,
    random: (n) => random.bytes(n),
    ...options,
  });
}

/** noble's own Pairing Request: NoInputNoOutput, bonding, key size 16, the board's LTK wanted. */
const NOBLE_PREQ = Uint8Array.of(0x01, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01);
const pairingRequest = (authReq: number, maxKeySize: number, responderKeys: number) =>
  Uint8Array.of(SMP_CODE.pairingRequest, 0x03, 0x00, authReq, maxKeySize, 0x00, responderKeys);
const failed = (reason: number) => [Uint8Array.of(SMP_CODE.pairingFailed, reason)];

/** The central's half of Just Works, computed here so each step can be checked or broken. */
function central(
  preq: Uint8Array,
  pres: Uint8Array,
  mrand = spec('00112233445566778899aabbccddeeff'),
) {
  const confirmOf = (r: Uint8Array) =>
    c1({ k: zeros, r, preq, pres, iat: 0, rat: 1, ia: IA, ra: RA });
  return {
    mrand,
    confirm: Uint8Array.of(SMP_CODE.pairingConfirm, ...confirmOf(mrand)),
    random: Uint8Array.of(SMP_CODE.pairingRandom, ...mrand),
    confirmOf,
  };
}

/** Runs a whole Just Works pairing and returns what the board sent at each step. */
function pairFully(board: SmpResponder, preq = NOBLE_PREQ) {
  const [pres] = board.handle(preq);
  expect(pres?.[0]).toBe(SMP_CODE.pairingResponse);
  const m = central(preq, pres!);
  const [sconfirm] = board.handle(m.confirm);
  const [srand] = board.handle(m.random);
  return { pres: pres!, sconfirm: sconfirm!, srand: srand!, m };
}

describe('SMP responder, Just Works', () => {
  it('answers noble-style pairing PDU by PDU and derives the STK both sides compute', () => {
    const board = responder();
    expect(board.state).toBe('idle');
    const [pres, ...more] = board.handle(NOBLE_PREQ);
    expect(more).toEqual([]);
    // Response: NoInputNoOutput, no OOB, bonding, key size 16, no initiator keys, EncKey.
    expect(hex(pres)).toBe('02030001100001');
    expect(board.state).toBe('pairing');
    expect(board.stk).toBeUndefined();

    const m = central(NOBLE_PREQ, pres!);
    const [sconfirm] = board.handle(m.confirm);
    expect(sconfirm?.[0]).toBe(SMP_CODE.pairingConfirm);
    expect(sconfirm).toHaveLength(17);
    expect(board.stk).toBeUndefined();

    const [srand] = board.handle(m.random);
    expect(srand?.[0]).toBe(SMP_CODE.pairingRandom);
    const boardRandom = srand!.slice(1);
    // The central's checks: the board's confirm matches its random, and the STK agrees.
    expect(hex(sconfirm!.slice(1))).toBe(hex(m.confirmOf(boardRandom)));
    expect(hex(board.stk)).toBe(hex(s1(zeros, boardRandom, m.mrand)));
    expect(board.state).toBe('paired');
    expect(board.failure).toBeUndefined();
  });

  it('repeats under the same seed and differs under another', () => {
    const a = pairFully(responder({}, 1));
    const b = pairFully(responder({}, 1));
    const c = pairFully(responder({}, 2));
    expect(hex(a.srand)).toBe(hex(b.srand));
    expect(hex(a.srand)).not.toBe(hex(c.srand));
  });

  it('distributes Encryption Information and Central Identification when asked', () => {
    const board = responder();
    expect(board.keyDistribution()).toEqual([]);
    pairFully(board);
    const [encInfo, centralId, ...more] = board.keyDistribution();
    expect(more).toEqual([]);
    expect(encInfo?.[0]).toBe(SMP_CODE.encryptionInformation);
    expect(encInfo).toHaveLength(17);
    expect(centralId?.[0]).toBe(SMP_CODE.centralIdentification);
    expect(centralId).toHaveLength(11);
    // The LTK is a key of its own, not the STK.
    expect(hex(encInfo!.slice(1))).not.toBe(hex(board.stk));
  });

  it('takes a bonding central’s identity after its own keys, and keeps it with the bond', () => {
    const board = responder();
    // The central offers its IdKey (Initiator Key Distribution 0x02) and bonds.
    const preq = Uint8Array.of(SMP_CODE.pairingRequest, 0x03, 0x00, 0x01, 0x10, 0x02, 0x01);
    const { pres } = pairFully(board, preq);
    expect(pres[5]).toBe(0x02);
    const irk = Uint8Array.from({ length: 16 }, (_, i) => i + 1);
    expect(board.handle(Uint8Array.of(SMP_CODE.identityInformation, ...irk))).toEqual([]);
    const address = Uint8Array.of(SMP_CODE.identityAddressInformation, 0x01, ...IA);
    expect(board.handle(address)).toEqual([]);
    expect(board.bond?.central).toEqual({ irk, address: CENTRAL.address, type: 'random' });
  });

  it('refuses the central’s identity out of order, or from a central that does not bond', () => {
    const bonding = responder();
    pairFully(bonding, Uint8Array.of(SMP_CODE.pairingRequest, 0x03, 0x00, 0x01, 0x10, 0x02, 0x01));
    expect(bonding.handle(Uint8Array.of(SMP_CODE.identityAddressInformation, 0x00, ...IA))).toEqual(
      failed(SMP_FAILURE.invalidParameters),
    );
    const passing = responder();
    const { pres } = pairFully(
      passing,
      Uint8Array.of(SMP_CODE.pairingRequest, 0x03, 0x00, 0x00, 0x10, 0x02, 0x01),
    );
    expect(pres[5]).toBe(0x00);
    expect(passing.handle(Uint8Array.of(SMP_CODE.identityInformation, ...zeros))).toEqual(
      failed(SMP_FAILURE.unspecifiedReason),
    );
  });

  it('distributes nothing when the central asked for no key', () => {
    const board = responder();
    const { pres } = pairFully(board, pairingRequest(0x01, 16, 0x00));
    expect(pres[6]).toBe(0x00);
    expect(board.state).toBe('paired');
    expect(board.keyDistribution()).toEqual([]);
  });

  it('answers a Secure Connections request as legacy only, without MITM', () => {
    // Bonding, MITM, SC and keypress asked; the board keeps only the bonding flags.
    const board = responder();
    const { pres } = pairFully(board, pairingRequest(0x1d, 16, 0x0f));
    expect(pres[3]).toBe(0x01);
    expect(pres[6]).toBe(0x01);
    expect(board.state).toBe('paired');
  });

  it.each([
    ['no bonding', 0x00],
    ['the reserved bonding flags 0b10', 0x02],
  ])('answers %s without bonding', (_name, authReq) => {
    const board = responder();
    const { pres } = pairFully(board, pairingRequest(authReq, 16, 0x01));
    expect(pres[3]).toBe(0x00);
    expect(board.state).toBe('paired');
  });

  it('cuts the STK and the LTK to the negotiated key size', () => {
    const board = responder();
    const { pres } = pairFully(board, pairingRequest(0x01, 10, 0x01));
    expect(pres[4]).toBe(16);
    const stk = board.stk!;
    expect(hex(stk.slice(10))).toBe('000000000000');
    expect(hex(stk.slice(0, 10))).not.toBe('00000000000000000000');
    const ltk = board.keyDistribution()[0]!.slice(1);
    expect(hex(ltk.slice(10))).toBe('000000000000');
  });

  it('pairs again after a completed pairing, with a new STK', () => {
    const board = responder();
    pairFully(board);
    const first = hex(board.stk);
    pairFully(board);
    expect(board.state).toBe('paired');
    expect(hex(board.stk)).not.toBe(first);
  });
});

describe('SMP responder failures', () => {
  it('Confirm Value Failed when the central random does not match its confirm', () => {
    const board = responder();
    const [pres] = board.handle(NOBLE_PREQ);
    const m = central(NOBLE_PREQ, pres!);
    board.handle(m.confirm);
    const wrong = Uint8Array.from(m.random);
    wrong[16] = (wrong[16] ?? 0) ^ 0x01;
    expect(board.handle(wrong)).toEqual(failed(SMP_FAILURE.confirmValueFailed));
    expect(board.state).toBe('failed');
    expect(board.failure).toBe(SMP_FAILURE.confirmValueFailed);
    expect(board.stk).toBeUndefined();
    expect(board.keyDistribution()).toEqual([]);
  });

  it('Encryption Key Size below 7 octets', () => {
    const board = responder();
    expect(board.handle(pairingRequest(0x01, 6, 0x01))).toEqual(
      failed(SMP_FAILURE.encryptionKeySize),
    );
    expect(board.state).toBe('failed');
    expect(board.failure).toBe(SMP_FAILURE.encryptionKeySize);
  });

  it('Pairing Not Supported when the board refuses', () => {
    const board = responder({ pairing: 'refuse' });
    expect(board.handle(NOBLE_PREQ)).toEqual(failed(SMP_FAILURE.pairingNotSupported));
    expect(board.state).toBe('failed');
    expect(board.failure).toBe(SMP_FAILURE.pairingNotSupported);
  });

  it.each([
    ['a Pairing Confirm before any request', [], Uint8Array.of(SMP_CODE.pairingConfirm, ...zeros)],
    [
      'a Pairing Random before the confirm',
      [NOBLE_PREQ],
      Uint8Array.of(SMP_CODE.pairingRandom, ...zeros),
    ],
    ['a second Pairing Request mid-pairing', [NOBLE_PREQ], NOBLE_PREQ],
    ['a Pairing Response, the board’s own command', [], Uint8Array.of(0x02, 0x03, 0, 1, 16, 0, 1)],
    [
      'a key the board did not ask for',
      [NOBLE_PREQ],
      Uint8Array.of(SMP_CODE.identityInformation, ...zeros),
    ],
  ])('Unspecified Reason for %s', (_name, before, pdu) => {
    const board = responder();
    for (const earlier of before) board.handle(earlier);
    expect(board.handle(pdu)).toEqual(failed(SMP_FAILURE.unspecifiedReason));
    expect(board.state).toBe('failed');
    expect(board.failure).toBe(SMP_FAILURE.unspecifiedReason);
  });

  it('Unspecified Reason for a random after pairing completed, and the STK is gone', () => {
    // What noble sends when it finds the board's confirm wrong: a stray Pairing Random.
    const board = responder();
    pairFully(board);
    expect(board.handle(Uint8Array.of(SMP_CODE.pairingRandom, SMP_CODE.pairingConfirm))).toEqual(
      failed(SMP_FAILURE.unspecifiedReason),
    );
    expect(board.stk).toBeUndefined();
  });

  it.each([
    ['a short Pairing Request', [], NOBLE_PREQ.slice(0, 6)],
    ['an IO capability out of range', [], Uint8Array.of(0x01, 0x05, 0, 1, 16, 0, 1)],
    ['an OOB flag out of range', [], Uint8Array.of(0x01, 0x03, 2, 1, 16, 0, 1)],
    ['a key size above 16', [], pairingRequest(0x01, 17, 0x01)],
    ['a short Pairing Confirm', [NOBLE_PREQ], Uint8Array.of(SMP_CODE.pairingConfirm, 1, 2)],
  ])('Invalid Parameters for %s', (_name, before, pdu) => {
    const board = responder();
    for (const earlier of before) board.handle(earlier);
    expect(board.handle(pdu)).toEqual(failed(SMP_FAILURE.invalidParameters));
    expect(board.failure).toBe(SMP_FAILURE.invalidParameters);
  });

  it.each([
    ['Security Request', SMP_CODE.securityRequest],
    ['Pairing Public Key', SMP_CODE.pairingPublicKey],
    ['Pairing DHKey Check', SMP_CODE.pairingDhKeyCheck],
    ['Keypress Notification', SMP_CODE.keypressNotification],
  ])(
    'Command Not Supported for %s, a command of Secure Connections or of the board',
    (_name, code) => {
      const board = responder();
      expect(board.handle(Uint8Array.of(code, 0x01))).toEqual(
        failed(SMP_FAILURE.commandNotSupported),
      );
      expect(board.failure).toBe(SMP_FAILURE.commandNotSupported);
    },
  );

  it('ignores a reserved code and an empty PDU, mid-pairing too (Vol 3, Part H, 3.3)', () => {
    const board = responder();
    const [pres] = board.handle(NOBLE_PREQ);
    for (const pdu of [
      Uint8Array.of(0x00, 1),
      Uint8Array.of(0x0f, 1),
      Uint8Array.of(0xff),
      new Uint8Array(0),
    ])
      expect(board.handle(pdu)).toEqual([]);
    expect(board.state).toBe('pairing');
    const m = central(NOBLE_PREQ, pres!);
    board.handle(m.confirm);
    board.handle(m.random);
    expect(board.state).toBe('paired');
  });

  it('takes the central’s Pairing Failed without answering', () => {
    const board = responder();
    board.handle(NOBLE_PREQ);
    expect(
      board.handle(Uint8Array.of(SMP_CODE.pairingFailed, SMP_FAILURE.passkeyEntryFailed)),
    ).toEqual([]);
    expect(board.state).toBe('failed');
    expect(board.failure).toBe(SMP_FAILURE.passkeyEntryFailed);
  });

  it('drops the STK when the central rejects the board’s confirm after its random', () => {
    const board = responder();
    pairFully(board);
    expect(
      board.handle(Uint8Array.of(SMP_CODE.pairingFailed, SMP_FAILURE.confirmValueFailed)),
    ).toEqual([]);
    expect(board.state).toBe('failed');
    expect(board.failure).toBe(SMP_FAILURE.confirmValueFailed);
    expect(board.stk).toBeUndefined();
    expect(board.keyDistribution()).toEqual([]);
  });

  it('ignores a Pairing Failed when no pairing is under way', () => {
    const board = responder();
    expect(board.handle(Uint8Array.of(SMP_CODE.pairingFailed, 0x08))).toEqual([]);
    expect(board.state).toBe('idle');
    expect(board.failure).toBeUndefined();
  });

  it('pairs after a failure when the central asks again', () => {
    const board = responder();
    board.handle(Uint8Array.of(SMP_CODE.pairingConfirm, ...zeros));
    expect(board.state).toBe('failed');
    pairFully(board);
    expect(board.state).toBe('paired');
    expect(board.failure).toBeUndefined();
  });

  it('names the bad option', () => {
    expect(() => responder({ initiator: { address: '11:22:33:44:55', type: 'public' } })).toThrow(
      /initiator\.address: must be a Bluetooth address/,
    );
    expect(() => responder({ responder: { ...BOARD, type: 'static' as 'random' } })).toThrow(
      /responder\.type/,
    );
    const short = new SmpResponder({
      initiator: CENTRAL,
      responder: BOARD,
      random: () => new Uint8Array(4),
    });
    short.handle(NOBLE_PREQ);
    expect(() => short.handle(Uint8Array.of(SMP_CODE.pairingConfirm, ...zeros))).toThrow(
      'random returned 4 bytes for 16',
    );
  });
});

// noble's central, unmodified: lib/hci-socket/smp.js over a fake ACL stream that carries its
// PDUs on CID 6 to the board's responder and the board's answers back.
const nodeRequire = createRequire(import.meta.url);
interface NobleSmp extends EventEmitter {
  sendPairingRequest(): void;
}
type NobleSmpConstructor = new (
  aclStream: EventEmitter,
  localAddressType: string,
  localAddress: string,
  remoteAddressType: string,
  remoteAddress: string,
) => NobleSmp;
const Smp = nodeRequire('@abandonware/noble/lib/hci-socket/smp.js') as NobleSmpConstructor;
const SMP_CID = 0x0006;

class FakeAclStream extends EventEmitter {
  readonly sent: string[] = [];

  constructor(private readonly board: SmpResponder) {
    super();
  }

  write(cid: number, data: Buffer): void {
    expect(cid).toBe(SMP_CID);
    this.sent.push(hex(data));
    for (const reply of this.board.handle(data)) this.deliver(reply);
  }

  deliver(pdu: Uint8Array): void {
    setImmediate(() => this.emit('data', SMP_CID, Buffer.from(pdu)));
  }
}

interface NobleOutcome {
  stk?: string;
  failed: boolean;
  stream: FakeAclStream;
  smp: NobleSmp;
}

/** noble starts pairing (as gatt.js does on Insufficient Authentication) and reports the end. */
function noblePairsWith(
  board: SmpResponder,
  boardAsNobleSeesIt: SmpResponderOptions['responder'] = BOARD,
): Promise<NobleOutcome> {
  const stream = new FakeAclStream(board);
  const smp = new Smp(
    stream,
    CENTRAL.type,
    CENTRAL.address,
    boardAsNobleSeesIt.type,
    boardAsNobleSeesIt.address,
  );
  return new Promise((resolve) => {
    smp.once('stk', (stk: Buffer) => resolve({ stk: hex(stk), failed: false, stream, smp }));
    smp.once('fail', () => resolve({ failed: true, stream, smp }));
    smp.sendPairingRequest();
  });
}

describe("noble's Smp against the board", () => {
  it('derives the same STK on both sides', async () => {
    const board = responder({}, 42);
    const outcome = await noblePairsWith(board);
    expect(outcome.failed).toBe(false);
    expect(outcome.stk).toBe(hex(board.stk));
    expect(outcome.stk).toMatch(/^[0-9a-f]{32}$/);
    expect(board.state).toBe('paired');
    expect(outcome.stream.sent.map((pdu) => pdu.slice(0, 2))).toEqual(['01', '03', '04']);
  });

  it('takes the board’s LTK, EDIV and Rand once the link is encrypted', async () => {
    const board = responder({}, 43);
    const { smp, stream } = await noblePairsWith(board);
    const [encInfo, centralId] = board.keyDistribution();
    const ltk = new Promise<string>((resolve) => smp.once('ltk', (k: Buffer) => resolve(hex(k))));
    const ident = new Promise<string[]>((resolve) =>
      smp.once('masterIdent', (ediv: Buffer, rand: Buffer) => resolve([hex(ediv), hex(rand)])),
    );
    stream.deliver(encInfo!);
    stream.deliver(centralId!);
    expect(await ltk).toBe(hex(encInfo!.slice(1)));
    expect(await ident).toEqual([hex(centralId!.slice(1, 3)), hex(centralId!.slice(3))]);
  });

  it('makes noble fail when the board refuses to pair', async () => {
    const board = responder({ pairing: 'refuse' });
    const outcome = await noblePairsWith(board);
    expect(outcome.failed).toBe(true);
    expect(outcome.stk).toBeUndefined();
    expect(board.failure).toBe(SMP_FAILURE.pairingNotSupported);
  });

  it('fails on both sides when they disagree on the board address', async () => {
    const board = responder();
    const outcome = await noblePairsWith(board, { ...BOARD, address: 'c4:7f:51:00:00:02' });
    expect(outcome.failed).toBe(true);
    expect(board.failure).toBe(SMP_FAILURE.confirmValueFailed);
    expect(board.stk).toBeUndefined();
  });
});

// A second, independent central: the SMP of the `ble-host` package, which speaks Secure
// Connections and so asks for it, and cuts the STK to the key size on its side.
interface BleHostPairing {
  rspLtk: Buffer | null;
  rspEdiv: number | null;
  rspRand: Buffer | null;
  sc: boolean;
  bond: boolean;
}
interface BleHostSmp extends EventEmitter {
  sendPairingRequest(request: {
    bondingFlags: number;
    maxKeySize: number;
    initKeyDistr: { encKey: boolean; idKey: boolean };
    rspKeyDistr: { encKey: boolean; idKey: boolean };
  }): boolean;
}
type Sent = ((...args: unknown[]) => void) | null | undefined;
const { SmpMasterConnection } = nodeRequire('ble-host/lib/internal/smp.js') as {
  SmpMasterConnection: new (
    connection: object,
    registerOnData: (handler: (data: Buffer) => void) => void,
    send: (data: Buffer, sent?: Sent, complete?: Sent) => void,
    startEncryption: (
      rand: Buffer,
      ediv: number,
      key: Buffer,
      done: (status: number, on: boolean) => void,
    ) => void,
    updateIdentityAddress: () => void,
    bondDone: () => void,
  ) => BleHostSmp;
};

async function bleHostPairsWith(board: SmpResponder, maxKeySize: number) {
  let deliver: (data: Buffer) => void = () => undefined;
  const later = (fn: () => void) => setImmediate(fn);
  const boardSays = (pdus: Uint8Array[]) =>
    pdus.forEach((pdu) => later(() => deliver(Buffer.from(pdu))));
  let encryptedWith: string | undefined;
  const wire: string[] = [];
  const smp = new SmpMasterConnection(
    {
      ownAddressType: CENTRAL.type,
      ownAddress: CENTRAL.address,
      peerAddressType: BOARD.type,
      peerAddress: BOARD.address,
      setTimeout: () => () => undefined,
      disconnect: () => undefined,
    },
    (handler) => (deliver = handler),
    (data, sent, complete) => {
      const replies = board.handle(data);
      wire.push(hex(data), ...replies.map(hex));
      later(() => {
        sent?.();
        complete?.();
        boardSays(replies);
      });
    },
    (_rand, _ediv, key, done) => {
      // The controller's part: the link is encrypted with this key, then the board hands out its keys.
      encryptedWith = hex(key);
      later(() => {
        done(0, true);
        boardSays(board.keyDistribution());
      });
    },
    () => undefined,
    () => undefined,
  );
  const outcome = new Promise<BleHostPairing | { failed: number }>((resolve) => {
    smp.once('pairingComplete', resolve);
    smp.once('pairingFail', (reason: number) => resolve({ failed: reason }));
  });
  smp.sendPairingRequest({
    bondingFlags: 0,
    maxKeySize,
    initKeyDistr: { encKey: true, idKey: true },
    rspKeyDistr: { encKey: true, idKey: true },
  });
  return { outcome: await outcome, encryptedWith, wire };
}

describe("ble-host's SMP against the board", () => {
  it.each([16, 7, 10])(
    'pairs legacy on a Secure Connections request, key size %i',
    async (maxKeySize) => {
      const board = responder({}, maxKeySize);
      const { outcome, encryptedWith, wire } = await bleHostPairsWith(board, maxKeySize);
      // Request: NoInputNoOutput, Secure Connections asked, keys both ways; response: legacy,
      // no keys from the central, the board's encryption key only.
      const size = maxKeySize.toString(16).padStart(2, '0');
      expect(wire.slice(0, 2)).toEqual([`01030008${size}0303`, '02030000100001']);
      expect(outcome).toMatchObject({ sc: false, bond: false });
      expect(encryptedWith).toBe(hex(board.stk));
      expect(encryptedWith?.slice(maxKeySize * 2)).toBe('00'.repeat(16 - maxKeySize));
      const [encInfo, centralId] = board.keyDistribution();
      const done = outcome as BleHostPairing;
      expect(hex(done.rspLtk ?? undefined)).toBe(hex(encInfo!.slice(1)));
      expect(done.rspEdiv).toBe(Buffer.from(centralId!).readUInt16LE(1));
      expect(hex(done.rspRand ?? undefined)).toBe(hex(centralId!.slice(3)));
    },
  );

  it('hears Pairing Not Supported from a refusing board', async () => {
    const { outcome } = await bleHostPairsWith(responder({ pairing: 'refuse' }), 16);
    expect(outcome).toEqual({ failed: SMP_FAILURE.pairingNotSupported });
  });
});
