// The station's SMP initiator against two boards it did not write: ble-host's peripheral SMP
// (LE Secure Connections with every association model, and legacy when the station offers no
// Secure Connections), and the simulated boards' legacy-only responder. PDUs go over a fake
// link; "encryption" succeeds when both sides hold the same key, as the controller would check.
import { createRequire } from 'node:module';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { pairingFailureMessage } from '../../../../src/core/ble/security-manager/refusals';
import { SMP_CODE, SMP_FAILURE } from '../../../../src/core/ble/hci/codes';
import {
  PairingFailedError,
  SmpInitiator,
  type PairingOptions,
  type PairingUser,
} from '../../../../src/core/ble/security-manager/initiator';
import type { IoCapability } from '../../../../src/core/ble/security-manager/pairing-method';
import { SmpResponder } from '../../../../src/core/ble/sim/smp-responder';
import { bleHostBondsCleanup } from '../../../helpers/ble-host-bonds';

const nodeRequire = createRequire(import.meta.url);
afterEach(bleHostBondsCleanup());
const CENTRAL = { address: 'c4:7f:51:00:00:01', type: 'public' as const };
const BOARD = { address: 'd1:22:33:44:55:66', type: 'random' as const };
const IO_CODE: Record<IoCapability, number> = {
  displayOnly: 0,
  displayYesNo: 1,
  keyboardOnly: 2,
  noInputNoOutput: 3,
  keyboardDisplay: 4,
};
const hex = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('hex');
const later = (fn: () => void) => setImmediate(fn);

interface BleHostSlave extends EventEmitter {
  isEncrypted: boolean;
}
type Sent = (() => void) | null | undefined;
const { SmpSlaveConnection } = nodeRequire('ble-host/lib/internal/smp.js') as {
  SmpSlaveConnection: new (
    connection: object,
    registerOnData: (handler: (data: Buffer) => void) => void,
    send: (data: Buffer, sent?: Sent, complete?: Sent) => void,
    registerLtkRequest: (
      handler: (
        rand: Buffer,
        ediv: number,
        reply: (ltk: Buffer | null, done: () => void) => void,
      ) => void,
    ) => void,
    updateIdentityAddress: () => void,
    bondDone: () => void,
  ) => BleHostSlave;
};

interface Board {
  io: IoCapability;
  mitm?: boolean;
  bond?: boolean;
}

/** What a person at the station saw and answered. */
interface UserLog {
  shown?: number;
  asked: number;
  compared?: number;
}

/** ble-host's board and the station's initiator over a fake link, with the board's passkey. */
async function pairWithBleHost(
  board: Board,
  options: PairingOptions,
  answer: { passkey?: (boardShows: number | undefined) => number; confirm?: boolean } = {},
  link: {
    /** Board PDUs lost on the way (a board that never finishes key distribution). */
    lost?: (pdu: Buffer) => boolean;
    /** The controller's report that the station's PDUs went. */
    sent?: () => Promise<void>;
    timeoutMs?: number;
  } = {},
) {
  let deliver: (data: Buffer) => void = () => undefined;
  let ltkRequest: Parameters<ConstructorParameters<typeof SmpSlaveConnection>[3]>[0] = () =>
    undefined;
  const wire: string[] = [];
  const slave = new SmpSlaveConnection(
    {
      ownAddressType: BOARD.type,
      ownAddress: BOARD.address,
      peerAddressType: CENTRAL.type,
      peerAddress: CENTRAL.address,
      setTimeout: () => () => undefined,
      disconnect: () => undefined,
    },
    (handler) => (deliver = handler),
    (data, sent, complete) => {
      wire.push(`< ${hex(data)}`);
      later(() => {
        sent?.();
        complete?.();
        if (!link.lost?.(data)) initiator.receive(Uint8Array.from(data));
      });
    },
    (handler) => (ltkRequest = handler),
    () => undefined,
    () => undefined,
  );
  let boardPasskey: number | undefined;
  let boardCompared: number | undefined;
  let typeOnBoard: ((passkey: number) => void) | undefined;
  slave.on('pairingRequest', (_req: unknown, cont: (rsp: object) => void) =>
    cont({
      ioCap: IO_CODE[board.io],
      mitm: board.mitm ?? false,
      bondingFlags: board.bond === false ? 0 : 1,
    }),
  );
  slave.on(
    'passkeyExchange',
    (_model: number, value: string | null, cont: (v?: number) => void) => {
      if (value === null) typeOnBoard = cont;
      else if (boardPasskey === undefined && _model !== 4) boardPasskey = Number(value);
      else {
        boardCompared = Number(value);
        cont();
      }
    },
  );
  const log: UserLog = { asked: 0 };
  const user: PairingUser = {
    displayPasskey(passkey) {
      log.shown = passkey;
      // The person reads it off the station and types it on the board.
      later(() => typeOnBoard?.(answer.passkey ? answer.passkey(passkey) : passkey));
    },
    enterPasskey() {
      log.asked++;
      return Promise.resolve(answer.passkey ? answer.passkey(boardPasskey) : (boardPasskey ?? -1));
    },
    confirmNumber(value) {
      log.compared = value;
      return Promise.resolve(answer.confirm ?? true);
    },
  };
  let encryptedWith: string | undefined;
  const initiator: SmpInitiator = new SmpInitiator(
    {
      ...{ local: CENTRAL, peer: BOARD },
      ...(link.sent && { sent: link.sent }),
      send(pdu) {
        wire.push(`> ${hex(pdu)}`);
        later(() => deliver(Buffer.from(pdu)));
      },
      encrypt(key, ediv, rand) {
        encryptedWith = hex(key);
        return new Promise((resolve) =>
          ltkRequest(Buffer.from(rand), ediv, (ltk, done) => {
            const same = ltk !== null && hex(ltk) === hex(key);
            resolve(same);
            if (same) later(done);
          }),
        );
      },
    },
    options,
    user,
    { timeoutMs: link.timeoutMs },
  );
  const outcome = new Promise<{ rspLtk: Buffer | null; mitm: boolean; sc: boolean }>((resolve) =>
    slave.once('pairingComplete', resolve),
  );
  const result = await initiator.pair().catch((error: unknown) => error);
  const boardOutcome = result instanceof Error ? undefined : await outcome;
  return { result, boardOutcome, encryptedWith, wire, log, boardPasskey, boardCompared };
}

const PHONE: PairingOptions = { io: 'displayYesNo', bond: true, mitm: true, sc: true };

describe('SMP initiator against ble-host’s board (LE Secure Connections)', () => {
  it('Just Works with a board that has no input or output', async () => {
    const run = await pairWithBleHost(
      { io: 'noInputNoOutput' },
      { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
    );
    expect(run.result).toMatchObject({
      sc: true,
      method: 'justWorks',
      authenticated: false,
      keySize: 16,
      bonded: true,
    });
    expect(run.wire.map((line) => line.slice(0, 4))).toEqual([
      '> 01',
      '< 02',
      '> 0c',
      '< 0c',
      '< 03',
      '> 04',
      '< 04',
      '> 0d',
      '< 0d',
      '< 08',
      '< 09',
    ]);
    const result = run.result as { keys: { ltk: Uint8Array; identityAddress?: object } };
    expect(hex(result.keys.ltk)).toBe(run.encryptedWith);
    expect(hex(result.keys.ltk)).toBe(hex(run.boardOutcome?.rspLtk));
    expect(result.keys.identityAddress).toEqual(BOARD);
    expect(run.boardOutcome).toMatchObject({ sc: true, mitm: false });
  });

  it('Numeric Comparison: both sides show the same six digits', async () => {
    const run = await pairWithBleHost({ io: 'displayYesNo', mitm: true }, PHONE);
    expect(run.result).toMatchObject({
      sc: true,
      method: 'numericComparison',
      authenticated: true,
    });
    expect(run.log.compared).toBeTypeOf('number');
    expect(run.log.compared).toBe(run.boardCompared);
    expect(run.boardOutcome).toMatchObject({ sc: true, mitm: true });
  });

  it('Numeric Comparison refused at the station: Numeric Comparison Failed, no key', async () => {
    const run = await pairWithBleHost({ io: 'displayYesNo', mitm: true }, PHONE, {
      confirm: false,
    });
    expect(run.result).toBeInstanceOf(PairingFailedError);
    expect((run.result as PairingFailedError).reason).toBe(SMP_FAILURE.numericComparisonFailed);
    expect(run.encryptedWith).toBeUndefined();
    expect(run.wire.at(-1)).toBe('> 050c');
  });

  it('Passkey Entry, the board displays and the station types', async () => {
    const run = await pairWithBleHost(
      { io: 'displayOnly', mitm: true },
      { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
    );
    expect(run.result).toMatchObject({ sc: true, method: 'passkeyEntry', authenticated: true });
    expect(run.log.asked).toBe(1);
    expect(run.boardPasskey).toBeTypeOf('number');
    // Twenty rounds of confirm and random each way.
    expect(run.wire.filter((line) => line.startsWith('> 03'))).toHaveLength(20);
    expect(run.boardOutcome).toMatchObject({ sc: true, mitm: true });
  });

  it('Passkey Entry, the station displays and the board types', async () => {
    const run = await pairWithBleHost(
      { io: 'keyboardOnly', mitm: true },
      { io: 'keyboardDisplay', bond: false, mitm: true, sc: true },
    );
    expect(run.result).toMatchObject({
      method: 'passkeyEntry',
      authenticated: true,
      bonded: false,
    });
    expect(run.log.shown).toBeGreaterThanOrEqual(0);
    expect(run.log.asked).toBe(0);
  });

  it('a wrong passkey fails at the first round where its bit differs', async () => {
    const run = await pairWithBleHost(
      { io: 'displayOnly', mitm: true },
      { io: 'keyboardOnly', bond: true, mitm: true, sc: true },
      { passkey: (shown) => (shown ?? 0) ^ 0x01 },
    );
    expect(run.result).toBeInstanceOf(PairingFailedError);
    expect((run.result as PairingFailedError).reason).toBe(SMP_FAILURE.confirmValueFailed);
    expect(run.encryptedWith).toBeUndefined();
  });

  it('MITM asked of a board with no input or output: refused with Authentication Requirements', async () => {
    const run = await pairWithBleHost({ io: 'noInputNoOutput' }, PHONE);
    const error = run.result as PairingFailedError;
    expect(error.reason).toBe(SMP_FAILURE.authenticationRequirements);
    expect(error.byBoard).toBe(false);
    expect(error.message).toContain(
      'the station stopped pairing: 0x03 authentication requirements — MITM was asked, and the board has neither display nor keyboard (NoInputNoOutput)',
    );
  });
});

describe('key distribution completes on both sides', () => {
  it('a board that never sends the keys it said it would is said so, and no bond is made', async () => {
    const run = await pairWithBleHost(
      { io: 'noInputNoOutput' },
      { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
      {},
      // Every key the board distributes is lost: the link is encrypted, the keys never come.
      {
        lost: (pdu) => pdu[0]! >= SMP_CODE.encryptionInformation && pdu[0]! <= 0x0a,
        timeoutMs: 50,
      },
    );
    expect(run.encryptedWith).toBeDefined();
    const error = run.result as PairingFailedError;
    expect(error).toBeInstanceOf(PairingFailedError);
    expect(error.message).toBe(
      'the board did not complete key distribution: no Identity Information from the board within 30 s (the SMP timeout); no bond was kept — pair again',
    );
  });

  it('ends only once the controller reported the station’s keys sent', async () => {
    let report: () => void = () => undefined;
    let asked = false;
    const sent = () => {
      asked = true;
      return new Promise<void>((resolve) => (report = resolve));
    };
    let ended = false;
    const running = pairWithBleHost(
      { io: 'noInputNoOutput' },
      { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
      {},
      { sent },
    ).finally(() => (ended = true));
    for (let i = 0; !asked && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(asked).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toBe(false);
    report();
    const run = await running;
    expect(run.result).toMatchObject({ bonded: true, sc: true });
  });
});

describe('SMP initiator, LE legacy', () => {
  it('legacy Passkey Entry with ble-host’s board when the station offers no Secure Connections', async () => {
    const run = await pairWithBleHost(
      { io: 'displayOnly', mitm: true },
      { io: 'keyboardOnly', bond: true, mitm: true, sc: false },
    );
    expect(run.result).toMatchObject({ sc: false, method: 'passkeyEntry', authenticated: true });
    const keys = (run.result as { keys: { ltk: Uint8Array } }).keys;
    // Legacy: the LTK is the board's own, distributed after encryption with the STK.
    expect(hex(keys.ltk)).toBe(hex(run.boardOutcome?.rspLtk));
    expect(hex(keys.ltk)).not.toBe(run.encryptedWith);
  });

  async function pairWithSimBoard(options: PairingOptions, pairing?: 'refuse') {
    const board = new SmpResponder({ initiator: CENTRAL, responder: BOARD, pairing });
    const wire: string[] = [];
    const reply = (pdus: Uint8Array[]) =>
      pdus.forEach((pdu) => {
        wire.push(`< ${hex(pdu)}`);
        later(() => initiator.receive(pdu));
      });
    const initiator: SmpInitiator = new SmpInitiator(
      {
        local: CENTRAL,
        peer: BOARD,
        send(pdu) {
          wire.push(`> ${hex(pdu)}`);
          later(() => reply(board.handle(pdu)));
        },
        encrypt(key) {
          const same = hex(key) === hex(board.stk);
          if (same) later(() => reply(board.keyDistribution()));
          return Promise.resolve(same);
        },
      },
      options,
      {
        displayPasskey: () => undefined,
        enterPasskey: () => Promise.resolve(0),
        confirmNumber: () => Promise.resolve(true),
      },
    );
    const result = await initiator.pair().catch((error: unknown) => error);
    return { result, board, wire };
  }

  it('legacy Just Works with the simulated board, and its LTK, EDIV and Rand kept', async () => {
    const { result, board } = await pairWithSimBoard({
      io: 'noInputNoOutput',
      bond: true,
      mitm: false,
      sc: true,
    });
    const [encInfo, centralId] = board.keyDistribution();
    expect(result).toMatchObject({ sc: false, method: 'justWorks', bonded: true });
    const keys = (result as { keys: { ltk: Uint8Array; ediv: number; rand: Uint8Array } }).keys;
    expect(hex(keys.ltk)).toBe(hex(encInfo!.subarray(1)));
    expect(keys.ediv).toBe(Buffer.from(centralId!).readUInt16LE(1));
    expect(hex(keys.rand)).toBe(hex(centralId!.subarray(3)));
  });

  it('refuses a legacy-only board when Secure Connections is required', async () => {
    const { result, wire } = await pairWithSimBoard({
      io: 'displayYesNo',
      bond: true,
      mitm: false,
      sc: true,
      scOnly: true,
    });
    expect((result as PairingFailedError).reason).toBe(SMP_FAILURE.authenticationRequirements);
    expect(wire.at(-1)).toBe(`> 05${'03'}`);
  });

  it('names the board’s refusal with its reason and what to do', async () => {
    const { result } = await pairWithSimBoard(
      { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
      'refuse',
    );
    const error = result as PairingFailedError;
    expect(error.byBoard).toBe(true);
    expect(error.message).toBe(
      'the board refused pairing: 0x05 pairing not supported — the board takes no pairing now; check its firmware allows pairing',
    );
  });
});

describe('refusals in words', () => {
  it('tells the board’s Authentication Requirements from the station’s own', () => {
    expect(new PairingFailedError(SMP_FAILURE.authenticationRequirements, true).message).toBe(
      'the board refused pairing: 0x03 authentication requirements — it needs MITM: give its passkey (an IO capability with a keyboard or display)',
    );
    expect(new PairingFailedError(0x42, true).message).toBe(
      'the board refused pairing: 0x42 (a reason this tool does not know)',
    );
  });

  it('blames the station’s own IO capability where it is why MITM could not be had', () => {
    const zephyr = { io: 'displayOnly', oob: false, mitm: true, sc: true } as const;
    const unattended = { io: 'noInputNoOutput', mitm: true, sc: true } as const;
    const ownStop = new PairingFailedError(SMP_FAILURE.authenticationRequirements, false, {
      context: { station: unattended, board: zephyr },
    });
    expect(ownStop.message).toBe(
      'the station stopped pairing: 0x03 authentication requirements — the board needs MITM, and this station claimed NoInputNoOutput, which leaves only Just Works with it: claim a keyboard so its passkey can be typed: give the passkey on the command line with --passkey or --passkey-env (the station then claims KeyboardOnly; or --io-capability keyboardDisplay), KeyboardDisplay in the link card’s pairing form, or, to provision it, a profile whose security.level is the one the board needs (the window then asks for its passkey)',
    );
    // The board refused the Pairing Request itself: the station claimed no input or output.
    const refused = pairingFailureMessage(SMP_FAILURE.authenticationRequirements, true, {
      station: { ...unattended, mitm: false },
    });
    expect(refused).toMatch(
      /^the board refused pairing: 0x03 authentication requirements — the board needs MITM, and this station claimed NoInputNoOutput.*--io-capability keyboardDisplay/,
    );
    // A station with a keyboard is not to blame: the board's own words stay.
    expect(
      pairingFailureMessage(SMP_FAILURE.authenticationRequirements, true, {
        station: { io: 'keyboardDisplay', mitm: true, sc: true },
        board: zephyr,
      }),
    ).toBe(
      'the board refused pairing: 0x03 authentication requirements — it needs MITM: give its passkey (an IO capability with a keyboard or display)',
    );
  });
});

describe('SMP initiator protocol rules', () => {
  function bare(timeoutMs = 30_000) {
    const sent: string[] = [];
    const initiator = new SmpInitiator(
      {
        local: CENTRAL,
        peer: BOARD,
        send: (pdu) => sent.push(hex(pdu)),
        encrypt: () => Promise.resolve(true),
      },
      { io: 'noInputNoOutput', bond: false, mitm: false, sc: true },
      {
        displayPasskey: () => undefined,
        enterPasskey: () => Promise.resolve(0),
        confirmNumber: () => Promise.resolve(true),
      },
      { timeoutMs },
    );
    return { initiator, sent, done: initiator.pair().catch((error: unknown) => error) };
  }

  it('answers an unexpected PDU with Unspecified Reason', async () => {
    const { initiator, sent, done } = bare();
    initiator.receive(Uint8Array.of(SMP_CODE.pairingConfirm, ...new Uint8Array(16)));
    expect(((await done) as PairingFailedError).reason).toBe(SMP_FAILURE.unspecifiedReason);
    expect(sent.at(-1)).toBe('0508');
  });

  it('answers a short Pairing Response with Invalid Parameters', async () => {
    const { initiator, sent, done } = bare();
    initiator.receive(Uint8Array.of(SMP_CODE.pairingResponse, 3, 0, 1, 16, 0));
    expect(((await done) as PairingFailedError).reason).toBe(SMP_FAILURE.invalidParameters);
    expect(sent.at(-1)).toBe('050a');
  });

  it('ignores reserved codes, empty PDUs and Security Requests mid-pairing', async () => {
    const { initiator, sent, done } = bare();
    for (const pdu of [
      new Uint8Array(0),
      Uint8Array.of(0x00),
      Uint8Array.of(0x1f),
      Uint8Array.of(SMP_CODE.securityRequest, 0x01),
    ])
      initiator.receive(pdu);
    initiator.receive(Uint8Array.of(SMP_CODE.pairingResponse, 3, 0, 0x08, 16, 0, 0));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((pdu) => pdu.slice(0, 2))).toEqual(['01', '0c']);
    initiator.linkLost('0x08 connection timeout');
    expect(String(await done)).toContain('the link closed during pairing');
  });

  it('ends at the SMP timeout without sending Pairing Failed', async () => {
    const { sent, done } = bare(20);
    const error = (await done) as PairingFailedError;
    expect(error.reason).toBeUndefined();
    expect(error.message).toContain('the SMP timeout');
    expect(sent).toHaveLength(1);
  });
});
