// `devicebench firmware` and `devicebench settings` as child processes over a simulated Zephyr
// board: upload then test then confirm, a revert on reset, a resumed upload after a dropped
// link, a board whose test image fails, settings saved across a reset, and bad input.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildImage } from '../core/ble/mcumgr/image-builder';
import { runCli, tempDir } from './run-cli';
import { withFastAdapter } from '../helpers/fast-adapter';

const ADDRESS = 'e8:2f:9a:00:50:01';
const MCUMGR_CHARACTERISTIC = 'da2e7828-fbce-4e01-ae9e-261174997c48';

function setup(name: string, extra: Record<string, unknown> = {}) {
  const dir = tempDir(name);
  const boards = join(dir, 'boards.json');
  const board = {
    name: 'CLI Zephyr',
    address: ADDRESS,
    advertising: { intervalMs: 20 },
    latency: { connectMs: 10, perOperationMs: 2 },
    mcumgr: { bufferSize: 2475, resetMs: 50, ...((extra.mcumgr as object) ?? {}) },
    ...(extra.faults ? { faults: extra.faults } : {}),
  };
  writeFileSync(boards, JSON.stringify({ boards: [board] }));
  const image = join(dir, 'app.signed.bin');
  writeFileSync(
    image,
    buildImage({ version: [1, 2, 0, 0], payload: new Uint8Array(12_000).map((_, i) => i * 7) }),
  );
  // An adapter with Data Length Extension: the commands are the subject, not the link's speed.
  const data = withFastAdapter(join(dir, 'data'));
  const common = ['--board', ADDRESS, '--sim-boards', boards, '--data-dir', data];
  return {
    dir,
    image,
    run: (args: string[]) => runCli([...args, ...common]),
  };
}

describe('devicebench firmware and settings', { timeout: 120_000 }, () => {
  it('uploads, tests, confirms, and a reset keeps the confirmed image', async () => {
    const s = setup('fw-confirm');
    const upload = await s.run([
      'firmware',
      'upload',
      '--image',
      s.image,
      '--test',
      '--confirm',
      '--json',
    ]);
    expect(upload.code, upload.stderr).toBe(0);
    const doc = JSON.parse(upload.stdout);
    expect(doc).toMatchObject({
      address: ADDRESS,
      image: { version: '1.2.0', size: 12_072 },
      upload: { total: 12_072, resumedFrom: 0, reconnects: 0 },
      outcome: 'confirmed',
    });
    expect(doc.upload.kilobytesPerSecond).toBeGreaterThan(0);
    expect(doc.slots[0]).toMatchObject({ version: '1.2.0', active: true, confirmed: true });
    // The link the upload asked for on the fast adapter (DLE, 7.5 ms), beside the rate.
    expect(doc.upload.link).toEqual({
      phy: '2M',
      dataLength: 251,
      intervalMs: 7.5,
      window: 3,
      notes: [],
    });
    expect(upload.stderr).toMatch(
      /uploaded, 12072 bytes at [\d.]+ kB\/s — link: 2M PHY · 251-octet PDUs · 7\.5 ms interval · window 3\n/,
    );

    const reset = await s.run(['firmware', 'reset', '--json']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({
      reverted: false,
      slots: [{ version: '1.2.0', confirmed: true }, { version: '1.0.0' }],
    });
  });

  it('says the board reverted when a tested image is reset before it is confirmed', async () => {
    const s = setup('fw-revert');
    const upload = await s.run(['firmware', 'upload', '--image', s.image, '--json']);
    expect(upload.code, upload.stderr).toBe(0);
    const hash = JSON.parse(upload.stdout).image.hash as string;
    const test = await s.run(['firmware', 'test', '--hash', hash, '--json']);
    expect(test.code, test.stderr).toBe(0);
    expect(JSON.parse(test.stdout)).toMatchObject({ outcome: 'running' });
    const reset = await s.run(['firmware', 'reset']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('reverted: the image on test was not confirmed, it runs 1.0.0');
    const list = await s.run(['firmware', 'list', '--json']);
    expect(JSON.parse(list.stdout).slots).toMatchObject([
      { slot: 0, version: '1.0.0', active: true, confirmed: true },
      { slot: 1, version: '1.2.0', hash, pending: false },
    ]);
  });

  it('resumes an upload after the link drops, and fails a test image that does not boot', async () => {
    const dropped = setup('fw-resume', {
      faults: { dropLinkDuringWrite: { characteristic: MCUMGR_CHARACTERISTIC, afterWrites: 30 } },
    });
    const failing = setup('fw-fails', { mcumgr: { faults: { testImageFails: true } } });
    const [resumed, reverted] = await Promise.all([
      dropped.run(['firmware', 'upload', '--image', dropped.image, '--json']),
      failing.run(['firmware', 'upload', '--image', failing.image, '--test', '--json']),
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const doc = JSON.parse(resumed.stdout);
    expect(doc.upload.reconnects).toBe(1);
    expect(doc.upload.resumedFrom).toBeGreaterThan(0);
    expect(resumed.stderr).toContain('link dropped: reconnecting (1) to resume the upload');
    expect(doc.slots[1]).toMatchObject({ version: '1.2.0', hash: doc.image.hash });

    expect(reverted.code).toBe(1);
    expect(JSON.parse(reverted.stdout)).toMatchObject({
      outcome: 'reverted',
      slots: [
        { version: '1.0.0', active: true },
        { version: '1.2.0', pending: false },
      ],
    });
    expect(reverted.stderr).toContain('reverted: 1.2.0 did not stay running after the reset');
  });

  it('sets a setting, saves it, reads it back after a reset; an unknown key fails in words', async () => {
    const s = setup('settings');
    const set = await s.run(['settings', 'set', '--key', 'devicebench/psdi', '--value', 'PSDI-42']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('devicebench/psdi set and saved to flash');
    const reset = await s.run(['firmware', 'reset']);
    expect(reset.code, reset.stderr).toBe(0);
    const [get, missing] = await Promise.all([
      s.run(['settings', 'get', '--key', 'devicebench/psdi', '--json']),
      s.run(['settings', 'get', '--key', 'devicebench/nothing']),
    ]);
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toMatchObject({
      key: 'devicebench/psdi',
      text: 'PSDI-42',
      hex: Buffer.from('PSDI-42').toString('hex'),
    });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      `FAIL ${ADDRESS} settings get devicebench/nothing: settings group: 0x03 key not found`,
    );
  });

  it('refuses bad input with exit 2, naming the flag, before opening the radio', async () => {
    const s = setup('fw-usage');
    const notImage = join(s.dir, 'plain.bin');
    writeFileSync(notImage, Buffer.alloc(64, 0xff));
    const [image, hash, key, both] = await Promise.all([
      s.run(['firmware', 'upload', '--image', notImage]),
      s.run(['firmware', 'test', '--hash', 'abc']),
      s.run(['settings', 'get', '--key', '/leading']),
      s.run(['settings', 'set', '--key', 'a/b', '--value', 'x', '--hex', '00']),
    ]);
    expect(image.code).toBe(2);
    expect(image.stderr).toContain('--image: ');
    expect(image.stderr).toContain('not an MCUboot image: header magic is 0xffffffff');
    expect(hash.code).toBe(2);
    expect(hash.stderr).toContain('--hash: must be the image’s SHA-256');
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('--key: a settings key is');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--value: set needs the value');
  });
});
