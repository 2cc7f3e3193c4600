// The Provisioning page's use case through the app's contract, against the project's own
// example firmware on Zephyr (native_posix_64 on btvirt, test/helpers/zephyr/): the station on
// the peer's btvirt adapter, a plan on the built-in `zephyr-mcumgr-settings` profile, the blank
// board found by a scan and provisioned with `provisioning:provisionOne`; it boots as the
// product, is verified, and the audit log says so. Skipped, with the reason, where btvirt or its
// tools are missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProvisioningRecord } from '../../../src/core/audit/records';
import { scanFor, useApp } from '../../helpers/app';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../../helpers/zephyr/zephyr-peer';

const missing = zephyrPeerMissing('devicebench-fw');
const get = useApp('app-zephyr-firmware');

describe.skipIf(missing !== undefined)(
  zephyrTitled('the app provisions the example firmware on Zephyr', missing),
  { timeout: 90_000 },
  () => {
    let peer: ZephyrPeer;

    beforeAll(async () => {
      peer = await startZephyrPeer('devicebench-fw');
      await get().ok('ble:setAdapters', { adapters: [peer.adapter], dropLinks: true });
    }, 60_000);

    afterAll(async () => {
      // The station's links go before the board does, so nothing waits on a vanished peer.
      await get().ok('ble:setAdapters', { adapters: ['sim'], dropLinks: true });
      await peer?.stop();
    });

    it('provisionOne on the unix: adapter: written, saved, reset, booted as the product, verified', async () => {
      const product = await get().ok<{ id: string }>('things:createTrialProduct', {
        name: 'Zephyr firmware',
      });
      const plan = {
        productId: product.id,
        profileId: 'zephyr-mcumgr-settings',
        psdi: { kind: 'sequence', prefix: 'ZA-', width: 4 },
      };
      await get().ok('provisioning:savePlan', plan);
      const board = await scanFor(get(), 'DB Zephyr');

      const { record } = await get().ok<{ record: ProvisioningRecord }>(
        'provisioning:provisionOne',
        { productId: product.id, deviceId: board.id },
      );
      expect(record, peer.log()).toMatchObject({
        psdi: 'ZA-0001',
        state: 'verified',
        profileId: 'zephyr-mcumgr-settings',
        boardAddress: 'd8:b0:de:b1:00:01',
        adapter: peer.adapter,
        psdiHeld: true,
      });
      // The firmware's own console: it booted again on the saved settings.
      await peer.waitFor(/provisioned: PSDI ZA-0001/);

      const { items } = await get().ok<{ items: ProvisioningRecord[] }>('audit:search', {
        productId: product.id,
      });
      expect(items).toMatchObject([{ id: record.id, psdi: 'ZA-0001', state: 'verified' }]);
      // The next board gets the next PSDI: ZA-0001 is spent.
      expect(await get().ok('provisioning:nextPsdi', plan)).toEqual({ psdi: 'ZA-0002' });
    });
  },
);
