// The station's bonds with boards, kept encrypted in the data folder (one per adapter identity
// and board): listed, or forgotten one board or all at once, so a board that lost its bond can
// be paired again (docs/decisions.md, "Pairing as a phone does").
import type { BondStore } from '../../ble/security-manager/bond-store';
import type { BondStorage, BondSummary } from '../../ble/security-manager/bond-summary';
import { folderBonds } from '../../ble/security-manager/folder-bonds';

/** The data folder's bonds, as the app's BLE process keeps them. */
function openBonds(dataDir: string): Promise<BondStore> {
  return folderBonds(dataDir, false);
}

/** The bonds a station pairs with; in memory, saying why, when the data folder's cannot open. */
export function stationBonds(dataDir: string): Promise<BondStore> {
  return folderBonds(dataDir, true);
}

/**
 * Every bond kept, or those of one adapter identity, and where they are kept: without their
 * keys, which never leave the encrypted store for a front end.
 */
export async function listBonds(
  dataDir: string,
  identity?: string,
): Promise<{ storage: BondStorage; bonds: BondSummary[] }> {
  const store = await openBonds(dataDir);
  return { storage: store.storage, bonds: store.summaries(identity) };
}

/**
 * Forgets one board's bond (or every board's) for one adapter identity, or for every identity
 * that has one; how many were forgotten.
 */
export async function forgetBonds(
  dataDir: string,
  which: { identity?: string; board?: string },
): Promise<number> {
  const store = await openBonds(dataDir);
  const stations = which.identity
    ? [which.identity]
    : [...new Set(store.list().map((b) => b.station))];
  return stations.reduce((n, s) => n + store.forget(s, which.board), 0);
}
