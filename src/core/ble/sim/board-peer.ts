// The board's end of one LE link: its L2CAP channels (ATT to the board's GATT server, SMP to its
// pairing responder, signaling answered with Command Reject), the time it takes to answer, and
// its faults as the air shows them — a board that resets mid-write goes silent, a rebooting one
// sends LL_TERMINATE_IND.
import { L2CAP_CID, L2CAP_SIGNALING } from '../att/codes';
import { HCI_ERROR, SMP_CODE } from '../hci/codes';
import { AttServer } from './att-server';
import type { LinkKey } from './att-permissions';
import type { SimBoard } from './board';
import type { CentralIdentity, EncryptionVerdict, KeyIdentity, RadioPeer } from './radio';
import type { Link, LinkPeer } from './link';
import { SmpResponder } from './smp-responder';

/** The Security Request's AuthReq flags (Vol 3, Part H, 3.5.1). */
const AUTH_BONDING = 0x01;
const AUTH_MITM = 0x04;
const AUTH_SC = 0x08;

/** L2CAP signaling Command Reject, reason "command not understood" (Vol 3, Part A, 4.1). */
function commandReject(identifier: number): Buffer {
  const reject = Buffer.alloc(6);
  reject.writeUInt8(L2CAP_SIGNALING.commandReject, 0);
  reject.writeUInt8(identifier, 1);
  reject.writeUInt16LE(2, 2); // the data length: the reason alone
  reject.writeUInt16LE(L2CAP_SIGNALING.reasonCommandNotUnderstood, 4);
  return reject;
}

export class BoardPeer implements LinkPeer, RadioPeer {
  private readonly board: SimBoard;
  private readonly link: Link;
  private readonly att: AttServer;
  private readonly smp: SmpResponder;
  private readonly now: () => number;
  /** What the link's encryption key is, once encrypted: ATT's permissions look at it. */
  private key: LinkKey | undefined;
  /** ATT and SMP are answered one at a time, each after the board's processing time. */
  private busyUntil = 0;
  private attached = true;

  constructor(
    board: SimBoard,
    link: Link,
    private readonly central: CentralIdentity,
    now: () => number,
  ) {
    this.board = board;
    this.link = link;
    this.now = now;
    this.att = new AttServer(
      board.services(),
      board,
      {
        encrypted: () => link.encrypted,
        key: () => this.key,
        bonded: () => board.bondWith(central.address) !== undefined,
      },
      {
        serverMtu: board.mtu,
      },
    );
    const { security } = board;
    this.smp = new SmpResponder({
      initiator: { address: central.address, type: central.addressType },
      // The address the link was made to: a private one for a board with privacy.
      responder: { address: board.airAddress, type: board.airAddressType },
      identity: board.identity,
      pairing: board.pairing,
      mode: security.mode,
      io: security.ioCapability,
      passkey: security.passkey,
      bonded: board.bondWith(central.address),
      allowUnauthOverwrite: security.bonding.allowUnauthOverwrite,
      bondTableFull: board.bondTableFull,
    });
    link.attach(this);
    // Security Request: AuthReq with bonding, MITM where the board can show a passkey, SC where
    // it speaks it (Vol 3, Part H, 3.6.7).
    if (security.securityRequest)
      this.answer(L2CAP_CID.smp, [
        Uint8Array.of(
          SMP_CODE.securityRequest,
          AUTH_BONDING |
            (security.ioCapability === 'noInputNoOutput' ? 0 : AUTH_MITM) |
            (security.mode === 'legacy' ? 0 : AUTH_SC),
        ),
      ]);
    board.attach({
      notify: (service, characteristic, data) => {
        const pdu = this.att.push(service, characteristic, data);
        if (pdu) this.link.send(L2CAP_CID.att, Buffer.from(pdu));
      },
      mtu: () => this.att.mtu,
      drop: (reason) => {
        // A reboot says goodbye on the air; a board that lost power just stops answering.
        if (reason === HCI_ERROR.connectionTimeout) this.silence();
        else this.link.terminate(reason);
      },
    });
  }

  receive(cid: number, payload: Buffer): void {
    if (!this.attached) return;
    if (cid === L2CAP_CID.att) {
      const outcome = this.att.handle(payload);
      if (outcome.kind === 'drop') return this.silence();
      if (outcome.kind === 'respond') this.answer(cid, [outcome.pdu]);
    } else if (cid === L2CAP_CID.smp) {
      this.answer(cid, this.smp.handle(payload));
      // The central's identity comes after the board's keys: the bond kept gains it.
      const bond = this.smp.bond;
      if (bond?.central && this.link.encrypted) this.board.keepBond(this.central.address, bond);
    } else if (cid === L2CAP_CID.signaling && payload.length >= 2 && payload[0]! % 2 === 0) {
      // Requests have even codes; a board that sends no requests of its own rejects them all.
      this.answer(cid, [commandReject(payload[1]!)]);
    }
  }

  encryptionRequested(key: Buffer, identity: KeyIdentity): EncryptionVerdict {
    const stk = this.smp.stk;
    if (stk) {
      this.key = this.smp.strength;
      return Buffer.from(stk).equals(key) ? 'encrypted' : 'micFailure';
    }
    // No pairing on this link: the key must be the one the board bonded with this central,
    // named by the EDIV and Rand it handed out with it.
    const bond = this.board.bondWith(this.central.address);
    if (!bond || bond.ediv !== identity.ediv || !identity.rand.equals(bond.rand))
      return 'keyMissing';
    this.key = bond;
    return Buffer.from(bond.ltk).equals(key) ? 'encrypted' : 'micFailure';
  }

  encrypted(): void {
    const bond = this.smp.bond;
    if (bond) this.board.keepBond(this.central.address, bond);
    this.answer(L2CAP_CID.smp, this.smp.keyDistribution());
  }

  closed(): void {
    this.detach();
  }

  /** A slow link (the board's `slowLink` fault) loses PDUs: each takes that many events. */
  eventsPerPdu(): number {
    return Math.max(1, Math.round(this.board.faults.slowLink));
  }

  private answer(cid: number, pdus: Uint8Array[]): void {
    if (!pdus.length) return;
    const now = this.now();
    const ready = Math.max(now, this.busyUntil) + this.board.latency('operation');
    this.busyUntil = ready;
    for (const pdu of pdus) this.link.send(cid, Buffer.from(pdu), ready - now);
  }

  /** The board reset: it forgets the link at once; the central notices at supervision timeout. */
  private silence(): void {
    this.link.goSilent();
    this.detach();
  }

  private detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.board.detach();
  }
}
