// The tap's part in the station's identity (docs/decisions.md, "One identity per dongle"). When
// noble reads the controller's address (Read BD_ADDR, at start and after every reset), the gate
// holds noble's later commands and the answer, settles the identity with the controller
// (identity-probe.ts), and only then hands noble the answer carrying the identity's address, so
// noble's `address` and its Security Manager's initiator address are the identity. From then on
// every command that names the own address type says random when the identity is random.
import type { AdapterIdentity } from '../adapter-identity';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, commandPacket } from './codes';
import {
  settleIdentity,
  type CommandAnswer,
  type ControllerFacts,
  type IdentityKeeping,
} from './identity-probe';
import { addressOfBytes, bytesOfAddress, withOwnAddressType } from './own-address';

/** How long the gate waits for the controller to answer one of its own commands. */
const ANSWER_TIMEOUT_MS = 2000;

interface GateIo {
  /** A packet to the controller (recorded in the trace). */
  toController(packet: Buffer): void;
  /** A packet to noble. */
  toHost(packet: Buffer): void;
  /** The identity is settled and noble has its address. */
  settled(identity: AdapterIdentity): void;
}

/** The opcode, status and return parameters of a Command Complete or Command Status. */
function answerOf(packet: Buffer): (CommandAnswer & { op: number }) | undefined {
  if (packet[0] !== HCI_PACKET.event || packet.length < 7) return undefined;
  // Command Complete: Num_HCI_Command_Packets, Command_Opcode, Status, return parameters (7.7.14).
  if (packet[1] === HCI_EVENT.commandComplete)
    return { op: packet.readUInt16LE(4), status: packet[6] ?? 0, params: packet.subarray(7) };
  // Command Status: Status, Num_HCI_Command_Packets, Command_Opcode (7.7.15).
  if (packet[1] === HCI_EVENT.commandStatus)
    return { op: packet.readUInt16LE(5), status: packet[3] ?? 0, params: Buffer.alloc(0) };
  return undefined;
}

const isCommand = (packet: Buffer, op: number) =>
  packet.length >= 4 && packet[0] === HCI_PACKET.command && packet.readUInt16LE(1) === op;

export class IdentityGate {
  /** The identity the adapter uses, once settled. */
  identity: AdapterIdentity | undefined;
  private settling = false;
  /** Ends the hold when the controller never answers Read BD_ADDR (a packet lost on a noisy line). */
  private unanswered: ReturnType<typeof setTimeout> | undefined;
  private readonly held: Buffer[] = [];
  private readonly waiting = new Map<number, (answer: CommandAnswer) => void>();
  private readonly facts: Omit<ControllerFacts, 'bdAddr'> = {};

  constructor(
    private readonly io: GateIo,
    private readonly keeping: (manufacturer: number | undefined) => IdentityKeeping,
  ) {}

  /** A packet from noble: held while the identity settles, else passed on under the rule. */
  fromHost(packet: Buffer): void {
    if (this.settling) {
      this.held.push(packet);
      return;
    }
    if (isCommand(packet, HCI_CMD.readBdAddr)) {
      this.settling = true;
      this.unanswered = setTimeout(() => this.release(), ANSWER_TIMEOUT_MS);
      this.unanswered.unref?.();
    }
    this.io.toController(
      this.identity?.type === 'random' ? withOwnAddressType(packet, 'random') : packet,
    );
  }

  /** A packet from the controller; true when it is the gate's to hold or answer, not noble's now. */
  fromController(packet: Buffer): boolean {
    const answer = answerOf(packet);
    if (!answer) return false;
    const waiter = this.waiting.get(answer.op);
    if (waiter) {
      this.waiting.delete(answer.op);
      waiter(answer);
      return true;
    }
    if (
      answer.op === HCI_CMD.readLocalVersion &&
      answer.status === 0 &&
      answer.params.length >= 8
    ) {
      // HCI_Version, HCI_Revision, LMP_Version, Company_Identifier, LMP_Subversion (7.4.1).
      this.facts.hciVersion = answer.params[0];
      this.facts.manufacturer = answer.params.readUInt16LE(4);
    }
    if (answer.op !== HCI_CMD.readBdAddr || !this.settling) return false;
    clearTimeout(this.unanswered);
    if (answer.status !== 0 || answer.params.length < 6) {
      this.release();
      return false;
    }
    void this.settle(packet, addressOfBytes(answer.params.subarray(0, 6)));
    return true;
  }

  private async settle(answer: Buffer, bdAddr: string): Promise<void> {
    try {
      const identity = await settleIdentity(
        { ...this.facts, bdAddr },
        (op, params) => this.ask(op, params),
        this.keeping(this.facts.manufacturer),
      );
      this.identity = identity;
      const told = Buffer.from(answer);
      bytesOfAddress(identity.address).copy(told, 7);
      this.io.toHost(told);
      this.io.settled(identity);
    } finally {
      this.release();
    }
  }

  /** noble's held commands go out in order; one may start settling again (a new Read BD_ADDR). */
  private release(): void {
    clearTimeout(this.unanswered);
    this.settling = false;
    for (const packet of this.held.splice(0)) this.fromHost(packet);
  }

  private ask(op: number, params?: Uint8Array): Promise<CommandAnswer | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(op);
        resolve(undefined);
      }, ANSWER_TIMEOUT_MS);
      timer.unref?.();
      this.waiting.set(op, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.io.toController(commandPacket(op, params));
    });
  }
}
