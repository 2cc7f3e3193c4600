// A settings file the app cannot read is kept aside, not lost, and the user is told where.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectText, useBench } from './fixture';

let dataDir = '';
const bench = useBench({
  prepareDataDir: (dir) => {
    dataDir = dir;
    writeFileSync(join(dir, 'environments.json'), '{"activeId": "x", "custom": [');
  },
});

describe('an unreadable environments file', () => {
  it('is kept aside and named in the status bar, and the app runs on its defaults', async () => {
    const { page, pageErrors } = bench();
    const kept = readdirSync(dataDir).find((f) => f.startsWith('environments.json.unreadable-'));
    expect(kept).toBeDefined();
    await expectText(page.getByTestId('status-bar'), kept!);
    await expectText(page.getByTestId('status-environment'), 'Local emulator');
    expect(pageErrors).toEqual([]);
  });
});
