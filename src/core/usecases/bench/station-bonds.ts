// The station's bonds with boards, kept encrypted in the data folder (one per adapter identity
// and board): listed, or forgotten one board or all at once, so a board that lost its bond can
// be paired again (docs/decisions.md, "Pairing as a phone does"); a damaged store set aside and
// started anew (docs/decisions/security-and-hardening.md, "A damaged bond store").
import type { BondStore } from '../../ble/security-manager/bond-store';
import {
  bondStorageWords,
  type BondStorage,
  type BondSummary,
} from '../../ble/security-manager/bond-summary';
import { BondKeyFileError } from '../../ble/security-manager/bond-key';
import { folderBonds } from '../../ble/security-manager/folder-bonds';
import { NotConfiguredError } from '../errors';

/**
 * The data folder's bonds under the bond key; a key file that cannot be used is the station's
 * to put right (the CLI exits 3 with its words).
 */
export async function stationBonds(dataDir: string): Promise<BondStore> {
  try {
    return await folderBonds(dataDir);
  } catch (err) {
    if (err instanceof BondKeyFileError) throw new NotConfiguredError(err.message);
    throw err;
  }
}

/**
 * Every bond kept, or those of one adapter identity, and where they are kept: without their
 * keys, which never leave the encrypted store for a front end.
 */
export async function listBonds(
  dataDir: string,
  identity?: string,
): Promise<{ storage: BondStorage; words: string; bonds: BondSummary[] }> {
  const store = await stationBonds(dataDir);
  const { storage } = store;
  return { storage, words: bondStorageWords(storage), bonds: store.summaries(identity) };
}

/**
 * Forgets one board's bond (or every board's) for one adapter identity, or for every identity
 * that has one; how many were forgotten.
 */
export async function forgetBonds(
  dataDir: string,
  which: { identity?: string; board?: string },
): Promise<number> {
  const store = await stationBonds(dataDir);
  if (store.storage.kind === 'damaged') throw new NotConfiguredError(damagedWords(store.storage));
  const stations = which.identity
    ? [which.identity]
    : [...new Set(store.list().map((b) => b.station))];
  return stations.reduce((n, s) => n + store.forget(s, which.board), 0);
}

function damagedWords(storage: Extract<BondStorage, { kind: 'damaged' }>): string {
  return `${storage.file} is damaged (${storage.reason}); no bond can be forgotten in it: \`devicebench bonds reset\` sets it aside and starts a new one`;
}

/**
 * Sets the data folder's damaged bond store aside and starts a new one: the name it was set
 * aside as, or null for a store that is not damaged (left as it is).
 */
export async function resetBonds(
  dataDir: string,
): Promise<{ storage: BondStorage; setAsideAs: string | null }> {
  const store = await stationBonds(dataDir);
  if (store.storage.kind !== 'damaged') return { storage: store.storage, setAsideAs: null };
  const setAsideAs = store.resetDamaged();
  return { storage: store.storage, setAsideAs };
}
