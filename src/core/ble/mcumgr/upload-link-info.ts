// What the link got for an MCUmgr upload (upload-link.ts asks for it), as the CLI and the
// firmware panel show it beside the kB/s. Browser-safe: types only.
import type { Phy } from '../link-parameters';

/** What the link got for an upload, as the CLI and the firmware panel show it beside the kB/s. */
export interface UploadLink {
  /** The PHY the upload's data went out on; absent where the adapter shows no link. */
  phy?: Phy;
  /** Payload octets of a link-layer data PDU. */
  dataLength?: number;
  intervalMs?: number;
  /** SMP requests in flight at once. */
  window: number;
  /** What the upload asked for and did not get, each in words. */
  notes: string[];
}
