// The Provisioning page against the project's own example firmware on Zephyr: the station on the
// peer's btvirt adapter (test/helpers/zephyr/), a product, the built-in `zephyr-mcumgr-settings`
// profile, "Provision" on the blank board the scan lists; the firmware takes its settings,
// resets, boots as the product and is verified. The flow runs once, on a blank peer of its own
// (a provisioned board is refused, as it should be); the result is pictured in both window
// sizes. Skipped, with the reason, where btvirt or its tools are missing.
import { afterEach, describe, expect, it } from 'vitest';
import {
  startZephyrPeer,
  zephyrPeerMissing,
  zephyrTitled,
  type ZephyrPeer,
} from '../helpers/zephyr/zephyr-peer';
import {
  atEachSize,
  createProduct,
  expectText,
  FLOW_SIZE,
  nav,
  opStatus,
  shoot,
  useBench,
} from './fixture';

const missing = zephyrPeerMissing('devicebench-fw');
const bench = useBench();
/** The name the example firmware advertises (prj.conf's CONFIG_BT_DEVICE_NAME). */
const BOARD = 'DB Zephyr';

let peer: ZephyrPeer | undefined;
afterEach(async () => {
  // The station leaves the peer's btvirt before the peer stops, so no link waits on it.
  const { page } = bench();
  await opStatus(page, 'ble:setAdapters', { adapters: ['sim'], dropLinks: true });
  await peer?.stop();
  peer = undefined;
});

describe.skipIf(missing !== undefined)(
  zephyrTitled('the Provisioning page provisions the example firmware', missing),
  () => {
    it('verifies the blank Zephyr board through its settings', { timeout: 90_000 }, async () => {
      const { page, pageErrors } = bench();
      await page.setViewportSize(FLOW_SIZE);
      peer = await startZephyrPeer('devicebench-fw');
      expect(
        await opStatus(page, 'ble:setAdapters', { adapters: [peer.adapter], dropLinks: true }),
      ).toBe(200);

      // Scans go to the new adapter once the station has it alone and powered on.
      const adapter = peer.adapter;
      await expect
        .poll(
          () =>
            page.evaluate(async () => {
              const answer = await fetch('/api/ops/ble:getStatus', {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '{}',
              });
              const { value: status } = (await answer.json()) as {
                value: { adapters: { spec: string }[]; adapterState: string };
              };
              return `${status.adapters.map((a) => a.spec).join(',')} ${status.adapterState}`;
            }),
          { timeout: 20_000 },
        )
        .toBe(`${adapter} poweredOn`);

      const product = 'Zephyr firmware';
      await nav(page, 'Device service').click();
      await createProduct(page, product);
      await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
      const plan = page.getByTestId('prov-plan');
      await plan.getByLabel('Product').selectOption({ label: product });
      await plan.getByLabel('Provisioning profile').selectOption('zephyr-mcumgr-settings');
      const prefix = 'ZU-';
      await plan.getByLabel('Prefix').fill(prefix);

      const row = page
        .getByTestId('prov-scan')
        .locator(`[data-testid="scan-row"][data-name="${BOARD}"]`);
      await row.getByRole('button', { name: `Provision ${BOARD}` }).click({ timeout: 20_000 });
      const result = page.getByTestId('single-result').filter({ hasText: BOARD }).first();
      await result.waitFor({ timeout: 60_000 });
      await expect.poll(() => result.innerText(), { timeout: 60_000 }).toContain('verified');
      await expectText(result, `${prefix}000001`);
      // The firmware's console: it booted again as the product with that PSDI.
      await peer.waitFor(new RegExp(`provisioned: PSDI ${prefix}000001`));
      await atEachSize(page, () => shoot(page, 'provision-zephyr-firmware'));
      expect(pageErrors).toEqual([]);
    });
  },
);
