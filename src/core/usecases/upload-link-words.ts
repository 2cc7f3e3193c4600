// What the link got for an MCUmgr upload, and how the CLI and the firmware panel say it beside
// the kB/s (docs/decisions/ble-and-hci.md, "An upload asks for the link it needs"). Browser-safe.
import type { UploadLink } from '../ble/mcumgr/upload-link-info';

export type { UploadLink };

/** "2M PHY · 251-octet PDUs · 7.5 ms interval · window 3", with what was not granted after it. */
export function uploadLinkWords(link: UploadLink): string {
  const parts = [
    link.phy && `${link.phy} PHY`,
    link.dataLength !== undefined && `${link.dataLength}-octet PDUs`,
    link.intervalMs !== undefined && `${link.intervalMs} ms interval`,
    `window ${link.window}`,
  ].filter(Boolean);
  const notes = link.notes.length ? ` (${link.notes.join('; ')})` : '';
  return `${parts.join(' · ')}${notes}`;
}
