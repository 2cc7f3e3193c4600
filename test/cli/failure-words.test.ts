// What `devicebench` says when a board fails it, and the conventions issue 47 asked for, as
// child processes over simulated boards: the FAIL line names the board, the step and the cause;
// an image larger than the slot is refused before the upload where the board tells its slot's
// size, in the same words where the board refuses it itself; "no MCUmgr service" only for a
// board without one, a refused pairing for the board that refused; positional FILE, KEY VALUE
// and ADDRESS beside the flags; an RSSI the controller did not measure is "n/a".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildImage } from '../core/ble/mcumgr/image-builder';
import { withFastAdapter } from '../helpers/fast-adapter';
import { runCli, seedProduct, tempDir, writeJson } from './run-cli';

const board = (n: number, name: string, extra: Record<string, unknown> = {}) => ({
  name,
  address: `e8:2f:9a:00:60:0${n}`,
  advertising: { intervalMs: 20 },
  latency: { connectMs: 10, perOperationMs: 2 },
  ...extra,
});

const PLAIN = board(1, 'Words Plain', { mcumgr: { slotSize: 16_384, resetMs: 50 } });
const SLOT_INFO = board(2, 'Words Slots', {
  mcumgr: { slotSize: 16_384, slotInfo: true, resetMs: 50 },
});
const NO_MCUMGR = board(3, 'Words No Mgr');
const LOCKED = board(4, 'Words Locked', {
  mcumgr: { security: 'encrypt', resetMs: 50 },
  faults: { refusePairing: true },
});

function setup(name: string) {
  const dir = tempDir(name);
  const boards = writeJson(dir, 'boards.json', { boards: [PLAIN, SLOT_INFO, NO_MCUMGR, LOCKED] });
  const data = withFastAdapter(join(dir, 'data'));
  const image = join(dir, 'big.signed.bin');
  // 20,072 bytes: more than the boards' 16 KB slots.
  writeFileSync(
    image,
    buildImage({ version: [1, 2, 0, 0], payload: new Uint8Array(20_000).map((_, i) => i * 7) }),
  );
  return {
    dir,
    image,
    run: (args: string[]) => runCli([...args, '--sim-boards', boards, '--data-dir', data]),
  };
}

describe(
  'devicebench says which board failed, at which step, and why',
  { timeout: 120_000 },
  () => {
    it('names the board, the step and the cause on the FAIL line, and in the JSON document', async () => {
      const s = setup('words-fail');
      const [missing, json] = await Promise.all([
        s.run(['settings', 'get', 'devicebench/nothing', '--board', PLAIN.address]),
        s.run([
          'settings',
          'get',
          '--key',
          'devicebench/nothing',
          '--board',
          PLAIN.address,
          '--json',
        ]),
      ]);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe(
        `FAIL ${PLAIN.address} settings get devicebench/nothing: settings group: 0x03 key not found\n`,
      );
      // The failure is the FAIL line alone: stderr carries at most the notice that bonds are not
      // kept (a station without a keychain), never the cause a second time.
      expect(missing.stderr).not.toContain('key not found');
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toEqual({
        address: PLAIN.address,
        step: 'settings get devicebench/nothing',
        error: 'settings group: 0x03 key not found',
      });
    });

    it('refuses an image larger than the slot before the upload where the board tells its size, in the same words where it refuses it', async () => {
      const s = setup('words-slot');
      const [told, refused] = await Promise.all([
        s.run(['firmware', 'upload', s.image, '--board', SLOT_INFO.address]),
        s.run(['firmware', 'upload', '--image', s.image, '--board', PLAIN.address]),
      ]);
      expect(told.code).toBe(1);
      expect(told.stdout).toBe(
        `FAIL ${SLOT_INFO.address} firmware upload of 1.2.0: the image (19.6 KB) is larger than slot 1 (16 KB)\n`,
      );
      // Refused before the first chunk: no progress was reported.
      expect(told.stderr).not.toMatch(/\d+\/20072 bytes/);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe(
        `FAIL ${PLAIN.address} firmware upload of 1.2.0: the image (19.6 KB) is larger than the board's slot 1: it answered image group: 0x1e image too large\n`,
      );
    });

    it('fails a provisioning run whose image does not fit, on the FAIL line naming the board', async () => {
      const dir = tempDir('words-batch');
      const data = withFastAdapter(join(dir, 'data'));
      const product = await seedProduct(data);
      const tray = writeJson(dir, 'tray.json', {
        boards: [
          {
            ...SLOT_INFO,
            advertising: { intervalMs: 20, serviceUuids: ['8d53dc1d-1db7-4cd3-868b-8a527460aa84'] },
          },
        ],
      });
      const s = setup('words-batch-image');
      const run = await runCli([
        'provision',
        '--product',
        product,
        '--board',
        SLOT_INFO.address,
        '--image',
        s.image,
        '--plan',
        writeJson(dir, 'plan.json', {
          profileId: 'zephyr-mcumgr-settings',
          psdi: { kind: 'sequence', prefix: 'WB-', width: 4 },
        }),
        '--sim-boards',
        tray,
        '--data-dir',
        data,
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        new RegExp(
          `^FAIL Words Slots \\(${SLOT_INFO.address}\\) failed at [a-z]+: .*the image \\(19\\.6 KB\\) is larger than slot 1 \\(16 KB\\)`,
          'm',
        ),
      );
    });

    it('says "no MCUmgr service" only for a board without one; a refused pairing is said as one', async () => {
      const s = setup('words-subscribe');
      const [none, locked] = await Promise.all([
        s.run(['firmware', 'list', '--board', NO_MCUMGR.address]),
        s.run(['firmware', 'list', '--board', LOCKED.address]),
      ]);
      expect(none.code).toBe(1);
      expect(none.stdout).toBe(
        `FAIL ${NO_MCUMGR.address} firmware list: the board has no MCUmgr service (8d53dc1d-…): its firmware does not serve MCUmgr over Bluetooth\n`,
      );
      expect(locked.code).toBe(1);
      expect(locked.stdout).toMatch(
        new RegExp(
          `^FAIL ${LOCKED.address} firmware list: subscribing to the board’s MCUmgr characteristic: the board needs an encrypted link and the board refused pairing: 0x05 pairing not supported`,
        ),
      );
      expect(locked.stdout).not.toContain('no MCUmgr service');
    });
  },
);

describe('positional forms beside the flags', { timeout: 120_000 }, () => {
  it('takes KEY VALUE and FILE positionally, the flags still, and refuses both when they differ', async () => {
    const s = setup('words-positional');
    const set = await s.run([
      'settings',
      'set',
      'devicebench/psdi',
      'PSDI-7',
      '--board',
      PLAIN.address,
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('devicebench/psdi set and saved to flash');
    const [byName, byFlag, keys, values, files, listFile] = await Promise.all([
      s.run(['settings', 'get', 'devicebench/psdi', '--board', PLAIN.address, '--json']),
      s.run(['settings', 'get', '--key', 'devicebench/psdi', '--board', PLAIN.address]),
      s.run(['settings', 'get', 'a/b', '--key', 'a/c', '--board', PLAIN.address]),
      s.run(['settings', 'set', 'a/b', 'x', '--value', 'y', '--board', PLAIN.address]),
      s.run(['firmware', 'upload', s.image, '--image', 'other.bin', '--board', PLAIN.address]),
      s.run(['firmware', 'list', s.image, '--board', PLAIN.address]),
    ]);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({ key: 'devicebench/psdi', text: 'PSDI-7' });
    expect(byFlag.stdout).toBe('devicebench/psdi = "PSDI-7"\n');
    expect(keys.code).toBe(2);
    expect(keys.stderr).toContain(
      '--key: KEY and --key name different values (a/b, a/c): give one',
    );
    expect(values.code).toBe(2);
    expect(values.stderr).toContain(
      '--value: VALUE and --value name different values (x, y): give one',
    );
    expect(files.code).toBe(2);
    expect(files.stderr).toContain(
      `--image: FILE and --image name different values (${s.image}, other.bin): give one`,
    );
    expect(listFile.code).toBe(2);
    expect(listFile.stderr).toContain('--image: list takes no image file');
  });

  it('forgets a bond by ADDRESS or --board, and refuses both when they differ', async () => {
    const data = tempDir('words-bonds');
    const [positional, flag, both] = await Promise.all([
      runCli(['bonds', 'forget', 'c4:7f:51:00:00:01', '--data-dir', data]),
      runCli(['bonds', 'forget', '--board', 'c4:7f:51:00:00:01', '--data-dir', data]),
      runCli([
        'bonds',
        'forget',
        'c4:7f:51:00:00:01',
        '--board',
        'c4:7f:51:00:00:02',
        '--data-dir',
        data,
      ]),
    ]);
    expect(positional.code, positional.stderr).toBe(0);
    expect(positional.stdout).toBe('no bond with c4:7f:51:00:00:01 to forget\n');
    expect(flag.stdout).toBe(positional.stdout);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      '--board: ADDRESS and --board name different values (c4:7f:51:00:00:01, c4:7f:51:00:00:02): give one',
    );
  });
});

describe('an RSSI the controller did not measure', { timeout: 60_000 }, () => {
  it('is "n/a" in the lines, null in the JSON, and meets no minimum', async () => {
    const dir = tempDir('words-rssi');
    const boards = writeJson(dir, 'boards.json', { boards: [PLAIN] });
    // A controller like BlueZ's btvirt: 127, "not available", in every advertising report.
    const data = join(dir, 'data');
    writeJson(withFastAdapter(data), 'sim-adapter.json', { rssi: 'notAvailable' });
    const scan = (extra: string[]) =>
      runCli(['scan', '--for', '1', ...extra, '--sim-boards', boards, '--data-dir', data]);
    const [lines, json, strong] = await Promise.all([
      scan([]),
      scan(['--json']),
      scan(['--rssi', '-120']),
    ]);
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout).toMatch(new RegExp(`^${PLAIN.address} +n/a +Words Plain`, 'm'));
    expect(lines.stdout).not.toContain('127');
    expect(JSON.parse(json.stdout).boards).toMatchObject([{ address: PLAIN.address, rssi: null }]);
    expect(strong.stdout).toContain('0 boards in 1 s');
  });
});
