// The service UUIDs worth naming on a bench: each trial product's (a provisioned board
// advertises it) and each provisioning profile's (a blank board waiting for provisioning).
// Either list failing to load only means fewer names, so their errors are not shown here.
import { useMemo } from 'react';
import type { BoardGatt } from '../../core/scenario/board-lint';
import { shownUuid } from './format';
import { MCUMGR_SERVICE_UUID } from '../../core/ble/mcumgr/service';
import { useLoad } from './use-load';
import type { UuidChoice } from '../components/ScanView';
import { useNames } from './use-names';

export function useUuidChoices(): UuidChoice[] {
  const products = useLoad((api) => api.things.listTrialProducts({}), []);
  const profiles = useLoad((api) => api.provisioning.listProfiles({}), []);
  return useMemo(
    () =>
      merged([
        ...(products.value ?? []).map((p) => ({
          uuid: p.serviceUuid,
          label: p.name,
          productId: p.id,
        })),
        ...(profiles.value ?? []).map((p) => ({ uuid: p.service, label: profileServiceLabel(p) })),
      ]),
    [products.value, profiles.value],
  );
}

/**
 * What a profile's service says of a board advertising it: a provisioning service is a blank
 * board's; MCUmgr's SMP service (an MCUmgr-settings profile's) is on every such board,
 * provisioned or not, so it names the service, not the board's state (issue 45).
 */
function profileServiceLabel(profile: { service: string }): string {
  return shownUuid(profile.service) === shownUuid(MCUMGR_SERVICE_UUID)
    ? 'MCUmgr (SMP)'
    : 'Blank (to provision)';
}

/** Profiles often share one provisioning service: one choice per UUID, naming each product. */
function merged(choices: UuidChoice[]): UuidChoice[] {
  const byUuid = new Map<string, UuidChoice>();
  for (const choice of choices) {
    const key = shownUuid(choice.uuid);
    const seen = byUuid.get(key);
    if (seen?.label.split(' / ').includes(choice.label)) continue;
    byUuid.set(key, seen ? { ...seen, label: `${seen.label} / ${choice.label}` } : choice);
  }
  return [...byUuid.values()];
}

/**
 * A checked board's services and characteristics as UUID suggestions, each with its name (the
 * product's own, the board file's or the SIG's) and what it is.
 */
export function useBoardUuidChoices(productId: string, board: BoardGatt | undefined): UuidChoice[] {
  const boardNames = useMemo(
    () =>
      Object.fromEntries(
        (board?.services ?? []).flatMap((s) =>
          [s, ...s.characteristics].flatMap((a) => (a.name ? [[a.uuid, a.name]] : [])),
        ),
      ),
    [board],
  );
  const names = useNames(productId, boardNames);
  return useMemo(
    () =>
      (board?.services ?? []).flatMap((s) => [
        {
          uuid: shownUuid(s.uuid),
          label: `${names.nameOf(s.uuid, ['service']) ?? 'Unnamed'} (service)`,
        },
        ...s.characteristics.map((c) => ({
          uuid: shownUuid(c.uuid),
          label: `${names.nameOf(c.uuid, ['characteristic']) ?? 'Unnamed'} (characteristic: ${c.properties.join(', ')})`,
        })),
      ]),
    [board, names],
  );
}
