// A board's identity across its private addresses: a board with privacy takes a new resolvable
// private address as it reboots, so the one seen at selection does not find it after the
// commit. A bond's IRK resolves the new one to the identity address the pairing handed out
// (docs/decisions/ble-and-hci.md, "Pairing as a phone does").
import type { BleConnection } from '../ble/port';
import { isResolvablePrivate } from '../ble/private-address';
import { FatalStepError } from './step-failures';

/** A board by its address, and by its identity where a bond resolves its private addresses. */
export interface BoardAddress {
  address: string;
  identityAddress?: string;
}

/** Why a board seen under a private address, with no bond kept, cannot be found again. */
export const UNFOLLOWABLE =
  'the board uses a private address and no bond was kept: the new address it takes as it reboots cannot be resolved — bond during provisioning (profile security bond)';

/**
 * `board` with the identity address a bonded pairing handed out on `connection`. It arrives in
 * key distribution, after the encryption change a remote link last reported, so for a board
 * under a private address the link's state is read afresh (a Read RSSI answers with it).
 */
async function withIdentity<T extends BoardAddress>(
  board: T,
  connection: BleConnection,
): Promise<T> {
  if (board.identityAddress) return board;
  let identityAddress = connection.linkInfo?.()?.security?.identityAddress;
  if (!identityAddress && isResolvablePrivate(board.address) && connection.requestLink)
    identityAddress = await connection
      .requestLink({ kind: 'rssi' })
      .then((link) => link.security?.identityAddress)
      .catch(() => undefined);
  return identityAddress ? { ...board, identityAddress } : board;
}

/**
 * `board` with its identity, on the link the board was paired on, before a PSDI is reserved:
 * a board under a private address whose identity no bond keeps could be written but never
 * verified after its reboot, so the run ends here and burns nothing.
 */
export async function followableBoard<T extends BoardAddress>(
  board: T,
  connection: BleConnection,
): Promise<T> {
  const followed = await withIdentity(board, connection);
  if (!followed.identityAddress && isResolvablePrivate(followed.address))
    throw new FatalStepError('connect', `${UNFOLLOWABLE}; no PSDI was reserved`, 1);
  return followed;
}

/** The address a record keeps: the identity where a bond gave one, else the address seen. */
export function recordedAddress(board: BoardAddress): string {
  return board.identityAddress ?? board.address;
}
