// The service UUIDs worth naming on a bench: each trial product's (a provisioned board
// advertises it) and each provisioning profile's (a blank board waiting for provisioning).
// Either list failing to load only means fewer names, so their errors are not shown here.
import { useCallback, useMemo } from 'react';
import { useApi } from '../../lib/api-context';
import { useResource } from '../../lib/use-resource';
import type { UuidChoice } from './ScanView';

export function useUuidChoices(): UuidChoice[] {
  const api = useApi();
  const products = useResource(useCallback(() => api.things.listTrialProducts({}), [api]));
  const profiles = useResource(useCallback(() => api.provisioning.listProfiles({}), [api]));
  return useMemo(
    () => [
      ...(products.value ?? []).map((p) => ({ uuid: p.serviceUuid, label: p.name })),
      ...(profiles.value ?? []).map((p) => ({ uuid: p.service, label: `Blank: ${p.name}` })),
    ],
    [products.value, profiles.value],
  );
}
