// The start page asks the platform for every product's scenario set; a product without one is
// answered 404, which is "nothing there yet", not a failure: the status bar shows it neutral,
// not red (docs/decisions.md, "The status bar's 404"). At both window sizes, screenshots kept
// under test-results/.
import { describe, expect, it } from 'vitest';
import { expectText, useBench, WINDOW_SIZES, shoot } from './fixture';

for (const size of WINDOW_SIZES) {
  describe(`start page probes at ${size.width}×${size.height}`, () => {
    const bench = useBench();

    it('shows the 404 for a product without a scenario set as neutral, not red', async () => {
      const { page, pageErrors } = bench();
      await page.setViewportSize(size);
      await page.getByRole('button', { name: 'Device service' }).click();
      await page.getByLabel('New product name').fill('Probe lamp');
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.getByTestId('product-row').filter({ hasText: 'Probe lamp' }).waitFor();

      await page
        .getByRole('navigation', { name: 'Areas' })
        .getByRole('button', { name: 'Start', exact: true })
        .click();
      await expectText(page.getByTestId('workflow-step').nth(3), 'No scenario set saved yet');
      const activity = page.getByTestId('status-activity');
      // The probe was the last request, and its 404 is drawn neutral.
      await expectText(activity, 'scenario');
      const last = activity.getByTestId('status-last');
      await expectText(last, '404');
      expect(await last.getAttribute('class')).toBe('muted');
      expect(await page.getByTestId('status-bar').locator('.bad').count()).toBe(0);
      await shoot(page, 'start-probe-404');
      expect(pageErrors).toEqual([]);
    });
  });
}
