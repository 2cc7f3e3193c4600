// Where a link's security work lies in its HCI traffic, timed on the bench's clock: from the
// station's Pairing Request or LE Start Encryption to the last SMP PDU or encryption change of
// that link. On the link model's clock (bench/provisioning-model.ts) time moves only while the
// tool waits on the bench, so a window over the connection interval is the connection events
// the SMP exchange and the link layer's encryption procedure took.
import type { Direction } from '../src/core/ble/hci/btsnoop';
import { HCI_CMD, HCI_EVENT, HCI_PACKET, SMP_CODE } from '../src/core/ble/hci/codes';
import { L2CAP_CID } from '../src/core/ble/att/codes';

export interface SecurityWindows {
  /** The tap's view of one packet, as `HciCentralOptions.trace` gives it. */
  record(direction: Direction, packet: Uint8Array): void;
  /** Milliseconds inside windows so far, open ones up to their last packet. */
  ms(): number;
  /** Pairing PDUs either way so far (a board's Security Request is not one). */
  pairingPdus(): number;
}

function isSmp(p: Uint8Array): boolean {
  return p[0] === HCI_PACKET.acl && p.length > 9 && (p[7]! | (p[8]! << 8)) === L2CAP_CID.smp;
}

export function securityWindows(now: () => number): SecurityWindows {
  let closed = 0;
  let open: { start: number; last: number } | undefined;
  let pdus = 0;
  const touch = () => open && (open.last = now());
  return {
    record(direction, p) {
      const opcode = (p[1] ?? 0) | ((p[2] ?? 0) << 8);
      const starts =
        direction === 'sent' &&
        ((isSmp(p) && p[9] === SMP_CODE.pairingRequest) ||
          (p[0] === HCI_PACKET.command && opcode === HCI_CMD.leStartEncryption));
      if (starts && !open) open = { start: now(), last: now() };
      if (isSmp(p) && p[9] !== SMP_CODE.securityRequest) {
        pdus++;
        touch();
      }
      if (direction !== 'received' || p[0] !== HCI_PACKET.event) return;
      if (p[1] === HCI_EVENT.encryptionChange || p[1] === HCI_EVENT.encryptionKeyRefreshComplete)
        touch();
      if (p[1] === HCI_EVENT.disconnectionComplete && open) {
        closed += open.last - open.start;
        open = undefined;
      }
    },
    ms: () => closed + (open ? open.last - open.start : 0),
    pairingPdus: () => pdus,
  };
}
