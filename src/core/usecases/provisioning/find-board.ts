// Finding a board by its Bluetooth address, as provisioning finds the board it is given: for as
// long as provisioning's `select` step may take. `devicebench provision --board`, `scenario run
// --board` and `firmware` all wait this long.
import type { Advertisement, BleCentral } from '../../ble/port';
import { defaultTiming } from '../../provisioning/steps';
import { findBoard } from '../../provisioning/verify';

/** How long a board named by its address may take to show up: provisioning's `select` bound. */
export const FIND_BOARD_MS = defaultTiming.select.timeoutMs;

/**
 * The board advertising from `address`, or undefined after FIND_BOARD_MS: with `service`, only
 * while it advertises that service (a board to provision); without, whatever it advertises.
 */
export function findByAddress(
  central: BleCentral,
  address: string,
  service?: string,
): Promise<Advertisement | undefined> {
  return findBoard(central, address, service === undefined ? [] : [service], FIND_BOARD_MS);
}
