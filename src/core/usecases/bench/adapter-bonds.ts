// The station's bonds as the app shows them: by adapter, through the BLE process that holds the
// one BondStore its pairings write, listed and forgotten one board or all of an adapter's
// (docs/decisions/ble-and-hci.md, "Bonds on the BLE bench"). The CLI works on the data folder's
// store itself (station-bonds.ts): it runs beside no BLE process.
import type { AdapterBonds } from './bench-schema';
import type { HostSupervisor } from './host-supervisor';
import type { BondStorage } from '../../ble/security-manager/bond-summary';

/** Each adapter of the station with the bonds made with its identity. */
export async function adapterBonds(supervisor: HostSupervisor): Promise<AdapterBonds> {
  const host = await supervisor.ensure();
  const { storage, bonds } = await host.call('bonds', {});
  const adapters = supervisor.status().adapters.map((adapter, index) => ({
    index,
    spec: adapter.spec,
    description: adapter.description,
    identity: adapter.identity,
    // By address, as the store keeps and forgets them (bond-store.ts `list`).
    bonds: bonds.filter((b) => b.station === adapter.identity?.address),
  }));
  return { storage, adapters };
}

/**
 * Forgets the bond of adapter identity `identity` with `board`, or every bond of that identity
 * when no board is named; how many were forgotten.
 */
export async function forgetAdapterBonds(
  supervisor: HostSupervisor,
  which: { identity: string; board?: string },
): Promise<{ forgotten: number }> {
  const host = await supervisor.ensure();
  return host.call('forgetBonds', { station: which.identity, board: which.board });
}

/**
 * Sets a damaged bond store aside and starts a new one, in the BLE process that holds it, so its
 * pairings keep bonds again at once; what was set aside (null when nothing was damaged).
 */
export async function resetAdapterBonds(
  supervisor: HostSupervisor,
): Promise<{ setAsideAs: string | null; storage: BondStorage }> {
  const host = await supervisor.ensure();
  return host.call('resetBonds', {});
}
