// A CSV PSDI list on the Provisioning page: a header row is refused with its line, "First row is a
// header" takes it as one, and every row the list leaves out is listed with its line before
// anything is provisioned.
import { describe, expect, it } from 'vitest';
import { expectText, shoot, useBench, createProduct } from './fixture';

const bench = useBench();

describe('a CSV PSDI list', () => {
  it('refuses a header row unless declared, and lists the rows it leaves out', async () => {
    const { page, pageErrors } = bench();
    await page.getByRole('button', { name: 'Device service' }).click();
    await createProduct(page, 'CSV lamp');
    await page.getByRole('button', { name: 'Provisioning', exact: true }).click();
    const plan = page.getByTestId('prov-plan');
    await plan.getByLabel('Product').selectOption({ label: 'CSV lamp' });
    await plan.getByText('List from a CSV file').click();
    await plan.getByTestId('psdi-csv-file').setInputFiles({
      name: 'mixed.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`PSDI\nAB-0001\nAB-0001\n\n${'X'.repeat(80)}\nAB-0002\n`),
    });
    await expectText(plan.getByTestId('psdi-csv'), 'mixed.csv');
    await plan.getByRole('button', { name: 'Save plan' }).click();
    await expectText(plan, 'line 1 ("PSDI") reads like a column name');
    await expectText(plan.getByTestId('plan-state'), 'Unsaved changes');

    await plan.getByLabel('First row is a header').check();
    const skipped = plan.getByTestId('psdi-csv-skipped');
    await expectText(skipped, 'Line 3: "AB-0001" repeats line 2, left out');
    await expectText(skipped, 'Line 4: blank PSDI, left out');
    await expectText(skipped, 'Line 5: PSDI "XXXX');
    await plan.getByRole('button', { name: 'Save plan' }).click();
    await expectText(plan.getByTestId('plan-state'), 'Plan saved');
    await shoot(page, 'psdi-csv-skipped');
    expect(pageErrors).toEqual([]);
  });
});
