// The provisioning set-up every front end starts a run from: each failure names its field, a
// board that reports its own PSDI needs no PSDI plan, and the product comes from the platform.
import { describe, expect, it } from 'vitest';
import type { TrialProduct } from '../../../src/core/platform/things/schema';
import { builtInProfiles } from '../../../src/core/provisioning/profiles';
import { planRun, provisioningSetup } from '../../../src/core/usecases/provisioning-setup';
import { SetupError } from '../../../src/core/usecases/errors';

const profiles = builtInProfiles();
const product = {
  id: '3000000001',
  name: 'Lamp',
  serviceUuid: 'a',
  psdiServiceUuid: 'b',
  psdiCharacteristicUuid: 'c',
} as TrialProduct;
const things = { listTrialProducts: async () => [product] };

function fieldOf(run: () => unknown): { field: string; message: string } | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof SetupError) return { field: err.field, message: err.detail };
    throw err;
  }
  return undefined;
}

describe('provisioning set-up', () => {
  it('names the field of each plan that cannot be run', () => {
    const sequence = { kind: 'sequence' as const, prefix: 'FW-', start: 1, width: 6 };
    expect(fieldOf(() => planRun({ plan: { psdi: sequence }, profiles }))).toEqual({
      field: 'profileId',
      message: 'is required: the plan names no profile',
    });
    expect(
      fieldOf(() => planRun({ plan: { profileId: 'nope', psdi: sequence }, profiles })),
    ).toMatchObject({
      field: 'profileId',
      message: expect.stringMatching(/^no profile "nope" \(known: .*devicebench-v1/),
    });
    expect(
      fieldOf(() => planRun({ plan: { profileId: 'devicebench-v1' }, profiles })),
    ).toMatchObject({ field: 'psdi', message: expect.stringMatching(/^is required/) });
    // A first PSDI longer than the profile allows is the plan's prefix, not an internal error.
    const long = { ...sequence, prefix: 'X'.repeat(30) };
    expect(
      fieldOf(() => planRun({ plan: { profileId: 'devicebench-v1', psdi: long }, profiles })),
    ).toMatchObject({ field: 'psdi.prefix' });
    expect(
      fieldOf(() =>
        planRun({
          plan: { profileId: 'devicebench-v1', psdi: { kind: 'list', csv: 'PSDI\n' } },
          profiles,
        }),
      ),
    ).toMatchObject({ field: 'psdi.header' });
  });

  it('needs no PSDI plan for a board that reports its own, and finds the product', async () => {
    const setup = await provisioningSetup({
      productId: product.id,
      plan: { profileId: 'devicebench-v1-device-psdi' },
      profiles,
      things,
    });
    expect(setup).toMatchObject({ psdi: undefined, skipped: [], product });
    expect(setup.profile.id).toBe('devicebench-v1-device-psdi');
    const missing = await provisioningSetup({
      productId: '3000000009',
      plan: { profileId: 'devicebench-v1-device-psdi' },
      profiles,
      things,
    }).catch((err: SetupError) => ({ field: err.field, message: err.detail }));
    expect(missing).toEqual({
      field: 'productId',
      message: 'no trial product 3000000009 in this environment',
    });
  });
});
