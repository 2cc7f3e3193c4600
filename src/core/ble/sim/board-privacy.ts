// A board's privacy (the board file's `security.privacy`): the Identity Resolving Key it hands
// out in pairing and the resolvable private address it shows on the air.
import { createHash } from 'node:crypto';
import { ah } from '../security-manager/crypto';
import type { BoardDefinition } from './board-file';

/** The board's IRK with privacy on: the file's, else one derived from the board id. */
export function boardIrk(def: BoardDefinition): Uint8Array | undefined {
  const privacy = def.security.privacy;
  return (
    privacy &&
    (privacy.irk
      ? Uint8Array.from(Buffer.from(privacy.irk, 'hex'))
      : Uint8Array.from(createHash('sha256').update(`irk:${def.id}`).digest().subarray(0, 16)))
  );
}

/**
 * The resolvable private address of one boot's rotation period: prand (its top bits 01) fixed
 * per boot and period from the IRK, then ah(IRK, prand) (Vol 6, Part B, 1.3.2.2). A new boot
 * takes a new one, as Zephyr does when the board enables Bluetooth again after a reboot; a bench
 * started anew shows the same first one, so two processes on one data folder see one bench.
 */
export function privateAddress(irk: Uint8Array, boot: number, period: number): string {
  const seed = createHash('sha256').update(irk).update(`${boot}:${period}`).digest();
  const prand = Uint8Array.of(seed[0]!, seed[1]!, (seed[2]! & 0x3f) | 0x40);
  const hash = ah(irk, prand);
  // Least significant octet first: the hash, then prand, whose last octet is the top one.
  return [...hash, ...prand]
    .reverse()
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}
