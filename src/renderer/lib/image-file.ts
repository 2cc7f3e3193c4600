// An MCUboot image file the person chose (the Firmware panel's, a batch's), as the app's image
// reader found it, and how its hash is shown.

export interface ChosenImage {
  fileName: string;
  base64: string;
  version: string;
  /** The image's SHA-256 TLV, hex: what the board lists for the slot. */
  hash: string;
  bytes: number;
}

/** A hash as a panel shows it: enough to tell images apart, the whole one in its title. */
export function shortHash(hash: string | undefined): string {
  return hash ? `${hash.slice(0, 12)}…` : 'no hash';
}
