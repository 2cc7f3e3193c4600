// The kinds of random address a board can advertise under (Vol 6, Part B, 1.3.2), told apart
// by their top two bits. Browser-safe: the scan list reads it too.

/** A resolvable private address: its top two bits 01 (Vol 6, Part B, 1.3.2.2). */
export function isResolvablePrivate(address: string): boolean {
  return (parseInt(address.slice(0, 2), 16) & 0xc0) === 0x40;
}
