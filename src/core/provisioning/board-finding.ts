// What reconcile found on a board when it looked, whatever the profile's kind.
import type { Advertisement } from '../ble/port';

export type BoardFinding =
  | { kind: 'carries-psdi'; advertisement: Advertisement; psdi: string }
  | { kind: 'different-psdi'; advertisement: Advertisement; psdi: string }
  /**
   * Not booted as the product; `status` is its provisioning status byte. `devicePsdi`: the PSDI
   * the board reports (a device-sourced one, or a settings board's saved PSDI key).
   */
  | { kind: 'blank'; advertisement: Advertisement; status: number; devicePsdi?: string }
  | { kind: 'not-found' };
