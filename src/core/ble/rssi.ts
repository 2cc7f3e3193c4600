// A received signal strength as a controller reports it, one rule for every front end. 127 is
// HCI's "RSSI is not available" (Bluetooth Core Specification Vol 4, Part E, §7.7.65.2): BlueZ's
// btvirt and some controllers report it for every advertisement. It is shown as "n/a" (null in
// JSON), never meets a minimum RSSI and sorts after every measured signal
// (docs/decisions/cli.md, "Words, never a stack trace").

/** The value a controller reports when it measured no signal strength. */
export const RSSI_NOT_AVAILABLE = 127;

/** The RSSI in dBm when the controller measured one, else null. */
export function measuredRssi(rssi: number): number | null {
  return rssi === RSSI_NOT_AVAILABLE ? null : rssi;
}

/** "-70 dBm", or "n/a" when the controller measured none. */
export function rssiText(rssi: number): string {
  const measured = measuredRssi(rssi);
  return measured === null ? 'n/a' : `${measured} dBm`;
}

/** Whether a board heard this strong passes a minimum RSSI: an unmeasured one never does. */
export function meetsMinRssi(rssi: number, min: number | undefined): boolean {
  if (min === undefined) return true;
  const measured = measuredRssi(rssi);
  return measured !== null && measured >= min;
}

/** A sort comparator: strongest first, an unmeasured signal after every measured one. */
export function strongerFirst(a: number, b: number): number {
  return (measuredRssi(b) ?? -Infinity) - (measuredRssi(a) ?? -Infinity) || 0;
}
