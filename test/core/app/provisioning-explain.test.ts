// Provisioning that explains itself, through the app's contract on the simulated bench: a board
// that refuses the PSDI write fails once, blaming the firmware, and burns no PSDI; the plan's
// next PSDI is the allocator's; progress names the board; a held PSDI is released with a reason.
import { describe, expect, it } from 'vitest';
import { scanFor as scanOn, useApp } from '../../helpers/app';
import type { ProvisioningRecord } from '../../../src/core/audit/records';

const get = useApp('app-prov-explain');
const ok = <T>(name: string, input?: unknown) => get().ok<T>(name, input);
const fails = (name: string, input: unknown) => get().fails(name, input);

const PSDI_CHARACTERISTIC = '8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00';
const PLATFORM_PSDI = '26e2b12b-85f0-4f3f-9fdd-91d114270e6e';

function board(name: string, address: string, faults: object) {
  return {
    name,
    address,
    advertising: { intervalMs: 20 },
    provisioning: { profile: 'devicebench-v1', rebootMs: 50 },
    faults,
  };
}

describe('provisioning that explains itself', () => {
  it('a refused write fails once, blames the firmware, burns no PSDI; the plan shows the next PSDI', async () => {
    await ok('sim:loadBoards', {
      fileName: 'explain.json',
      text: JSON.stringify({
        boards: [
          board('DB Refuser', 'e8:12:9c:00:40:01', {
            refuseAccess: { operation: 'write', characteristic: PSDI_CHARACTERISTIC, code: 3 },
          }),
          board('DB Keeper', 'e8:12:9c:00:40:02', {
            refuseAccess: { operation: 'read', characteristic: PLATFORM_PSDI, code: 2 },
          }),
        ],
      }),
    });
    const product = await ok<{ id: string }>('things:createTrialProduct', { name: 'Explained' });
    const plan = {
      productId: product.id,
      profileId: 'devicebench-v1',
      psdi: { kind: 'sequence', prefix: 'EX-', start: 17, width: 6 },
    };
    await ok('provisioning:savePlan', plan);
    expect(await ok('provisioning:nextPsdi', plan)).toEqual({ psdi: 'EX-000017' });

    const names = new Set<string>();
    const off = get().app.subscribe('provisioning:progress', (p) => {
      const name = (p as { name?: string }).name;
      if (name) names.add(name);
    });
    const refuser = await scanOn(get(), 'DB Refuser');
    const refused = await fails('provisioning:provisionOne', {
      productId: product.id,
      deviceId: refuser.id,
    });
    off();
    expect(refused.message).toContain('write not permitted');
    expect(refused.message).toContain('its GATT matches profile devicebench-v1');
    expect(refused.message).not.toContain('firmware derives the PSDI');
    expect(names).toEqual(new Set(['DB Refuser']));
    const [record] = (
      await ok<{ items: ProvisioningRecord[] }>('audit:search', { productId: product.id })
    ).items;
    expect(record).toMatchObject({
      boardName: 'DB Refuser',
      attempts: 1,
      psdiHeld: false,
      psdiReturned: true,
    });
    expect(await ok('provisioning:nextPsdi', plan)).toEqual({ psdi: 'EX-000017' });

    // Verified by read-back is refused: the commit went out, so the failed record holds its PSDI.
    const keeper = await scanOn(get(), 'DB Keeper');
    const kept = await fails('provisioning:provisionOne', {
      productId: product.id,
      deviceId: keeper.id,
    });
    expect(kept.message).toContain('verify');
    const held = (
      await ok<{ items: ProvisioningRecord[] }>('audit:search', {
        productId: product.id,
        states: ['failed'],
        text: 'keeper',
      })
    ).items[0] as ProvisioningRecord;
    expect(held).toMatchObject({ psdi: 'EX-000017', psdiHeld: true, boardName: 'DB Keeper' });
    expect(await ok('provisioning:nextPsdi', plan)).toEqual({ psdi: 'EX-000018' });

    const noReason = await fails('audit:releasePsdi', { recordId: held.id, reason: ' ' });
    expect(noReason.fields?.[0]?.field).toBe('reason');
    const released = await ok<ProvisioningRecord>('audit:releasePsdi', {
      recordId: held.id,
      reason: 'board erased on the bench',
    });
    expect(released).toMatchObject({ state: 'released', psdiHeld: false, psdiReturned: true });
    expect(released.history.at(-1)).toMatchObject({
      kind: 'released',
      message: 'board erased on the bench',
      by: expect.any(String),
      station: expect.any(String),
    });
    expect(await ok('provisioning:nextPsdi', plan)).toEqual({ psdi: 'EX-000017' });
    const again = await fails('audit:releasePsdi', { recordId: held.id, reason: 'twice' });
    expect(again.fields?.[0]?.field).toBe('recordId');
  }, 90_000);
});
