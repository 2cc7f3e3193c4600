// Board description files: the shipped ones load, bad ones fail naming the file and field.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SimulatedBench } from '../../../src/core/ble/sim/bench';
import { BoardFileError, SIM_BOARDS_DIR } from '../../../src/core/ble/sim/board-file';
import { ManualSimClock } from '../../../src/core/ble/sim/manual-clock';

const dir = mkdtempSync(join(tmpdir(), 'devicebench-boards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let bench: SimulatedBench;
afterEach(() => bench.close());

function fresh(): SimulatedBench {
  bench = new SimulatedBench({ clock: new ManualSimClock() });
  return bench;
}

function problems(text: string, file = 'tray.json'): string[] {
  try {
    fresh().loadBoards(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(BoardFileError);
    return (err as BoardFileError).message.split('\n');
  }
  throw new Error('the file was accepted');
}

const file = (boards: unknown[]) => JSON.stringify({ boards });
const gattBoard = (uuid: string) => ({
  name: 'Bad',
  gatt: [
    { uuid: '180a', characteristics: [{ uuid: '2a29', properties: ['read'] }] },
    { uuid: '180f', characteristics: [{ uuid, properties: ['read'] }] },
  ],
});

describe('board files', () => {
  it('loads every shipped board: nRF52, ESP32, sensor, flaky, starter, Zephyr MCUmgr, Zephyr Secure and a tray of 20', () => {
    fresh();
    const views = readdirSync(SIM_BOARDS_DIR)
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => bench.loadBoardFile(join(SIM_BOARDS_DIR, f)));
    expect(views.length).toBe(27);
    expect(new Set(views.map((v) => v.address)).size).toBe(27);
    const tray = views.filter((v) => v.name.startsWith('DB Tray'));
    expect(tray.map((v) => v.name)).toEqual(
      Array.from({ length: 20 }, (_, i) => `DB Tray ${String(i + 1).padStart(2, '0')}`),
    );
    expect(tray[19]!.address).toBe('c2:8e:10:00:00:14');
    expect(views.find((v) => v.name === 'DB ESP32-C3')?.provisioning?.psdiSource).toBe('device');
    expect(views.find((v) => v.name === 'DB Sensor')?.buttons).toEqual(['button']);
    expect(views.find((v) => v.name === 'DB Starter')?.provisioning).toMatchObject({
      profileId: 'platform-starter',
      psdiSource: 'device',
    });
    expect(views.find((v) => v.name === 'DB Flaky')?.faults).toMatchObject({
      slowLink: 4,
      refuseConnection: 0.33,
    });
  });

  it('names the file and the field path of a bad UUID', () => {
    expect(problems(file([gattBoard('not-a-uuid')]))).toEqual([
      'tray.json: boards[0].gatt[1].characteristics[0].uuid: must be a UUID (16-, 32- or 128-bit hex)',
    ]);
  });

  it('takes read and write permissions per characteristic, open by default', () => {
    fresh();
    const [board] = bench.loadBoards(
      file([
        {
          name: 'Locked',
          gatt: [
            {
              uuid: '180f',
              characteristics: [
                { uuid: '2a19', properties: ['read', 'write'], permissions: { read: 'encrypted' } },
                { uuid: '2a1a', properties: ['read'] },
              ],
            },
          ],
        },
      ]),
    );
    expect(board?.name).toBe('Locked');
    expect(
      bench
        .board(board!.id)
        ?.services()[0]
        ?.characteristics.map((c) => c.permissions),
    ).toEqual([{ read: 'encrypted' }, undefined]);
  });

  it('names the field of a bad permission and of one the properties do not allow', () => {
    const withPermissions = (properties: string[], permissions: unknown) =>
      file([
        {
          name: 'A',
          gatt: [{ uuid: '180f', characteristics: [{ uuid: '2a19', properties, permissions }] }],
        },
      ]);
    const [bad] = problems(withPermissions(['read'], { read: 'secret' }));
    expect(bad).toMatch(
      /^tray\.json: boards\[0\]\.gatt\[0\]\.characteristics\[0\]\.permissions\.read: /,
    );
    expect(problems(withPermissions(['read'], { notify: 'open' }))).toEqual([
      'tray.json: boards[0].gatt[0].characteristics[0].permissions.notify: is not a known field',
    ]);
    expect(problems(withPermissions(['read'], { write: 'encrypted' }))).toEqual([
      'tray.json: boards[0].gatt[0].characteristics[0].permissions.write: the characteristic has no write or writeWithoutResponse property',
    ]);
    expect(problems(withPermissions(['write'], { read: 'encrypted' }))).toEqual([
      'tray.json: boards[0].gatt[0].characteristics[0].permissions.read: the characteristic has no read property',
    ]);
  });

  it('names unknown fields, unknown profiles and wrong types', () => {
    expect(problems(file([{ name: 'A', faluts: {} }]))).toEqual([
      'tray.json: boards[0].faluts: is not a known field',
    ]);
    expect(problems(file([{ name: 'A', provisioning: { profile: 'nope' } }]))).toEqual([
      'tray.json: boards[0].provisioning.profile: no provisioning profile "nope"',
    ]);
    const [line] = problems(file([{ name: 'A', faults: { refuseConnection: 'yes' } }]));
    expect(line).toMatch(/^tray\.json: boards\[0\]\.faults\.refuseConnection: /);
    expect(problems(file([{ name: 'A', count: 0 }]))[0]).toMatch(
      /^tray\.json: boards\[0\]\.count: /,
    );
    const drift = (payload: object) =>
      problems(
        file([
          {
            name: 'A',
            notifications: { periodic: [{ characteristic: '2a19', intervalMs: 100, payload }] },
          },
        ]),
      ).filter((p) => p.includes('payload'));
    expect(drift({ kind: 'drift', type: 'uint8', min: 10, max: 300, start: 5, step: 1 })).toEqual([
      'tray.json: boards[0].notifications.periodic[0].payload.start: must be between min (10) and max (300)',
      'tray.json: boards[0].notifications.periodic[0].payload.max: does not fit uint8 (0…255)',
    ]);
    expect(problems('{"boards": []}')).toEqual(['tray.json: boards: needs at least one board']);
    expect(problems('{"boards": [')[0]).toMatch(/^tray\.json: not JSON: /);
  });

  it('checks what the schema cannot: notification targets, derived PSDIs, names, addresses', () => {
    expect(
      problems(
        file([
          {
            name: 'A',
            gatt: [{ uuid: '180f', characteristics: [{ uuid: '2a19', properties: ['read'] }] }],
            notifications: {
              buttons: [{ characteristic: '2a19', payload: { kind: 'counter' } }],
              periodic: [
                { characteristic: '2a20', intervalMs: 100, payload: { kind: 'random', bytes: 1 } },
              ],
            },
          },
        ]),
      ),
    ).toEqual([
      "tray.json: boards[0].notifications.periodic[0].characteristic: is not in the board's gatt",
      'tray.json: boards[0].notifications.buttons[0].characteristic: needs the notify or indicate property',
    ]);
    expect(
      problems(
        file([{ name: 'A', provisioning: { profile: 'devicebench-v1', derivedPsdi: 'X' } }]),
      )[0],
    ).toContain(
      'boards[0].provisioning.derivedPsdi: only for profiles whose firmware derives the PSDI',
    );
    expect(
      problems(
        file([
          {
            name: 'A',
            provisioning: {
              profile: 'devicebench-v1-device-psdi',
              derivedPsdi: 'LONG-PREFIX-{address}',
            },
          },
        ]),
      )[0],
    ).toContain("is longer than the profile's 20 bytes");
    // 27 characters, plus " 001" for the first of a hundred.
    expect(problems(file([{ name: 'Board name of 27 characters', count: 100 }]))[0]).toContain(
      'boards[0].name: "Board name of 27 characters 001" is longer than the 29 bytes',
    );
    expect(
      problems(
        file([
          { name: 'A', address: 'c2:00:00:00:00:01' },
          { name: 'B', address: 'C2:00:00:00:00:01' },
        ]),
      ),
    ).toEqual(['tray.json: address c2:00:00:00:00:01 is used by both "A" and "B"']);
  });

  it('names the file when it cannot be read, and refuses a board already on the bench', () => {
    fresh();
    expect(() => bench.loadBoardFile(join(dir, 'missing.json'))).toThrow(
      /^missing\.json: cannot be read: /,
    );
    const path = join(dir, 'one.json');
    writeFileSync(path, file([{ name: 'One', address: 'c2:00:00:00:00:01' }]));
    expect(bench.loadBoardFile(path).map((v) => v.id)).toEqual(['c20000000001']);
    expect(() => bench.loadBoardFile(path)).toThrow(
      'one.json: a board with address c2:00:00:00:00:01 is already on the bench',
    );
    bench.removeBoard('c20000000001');
    expect(bench.boards()).toEqual([]);
    expect(bench.loadBoardFile(path)).toHaveLength(1);
  });

  it('generates the same address for the same name every time', () => {
    const a = fresh().addBoard({ name: 'Proto X' })[0]!.address;
    bench.close();
    const b = fresh().addBoard({ name: 'Proto X' })[0]!.address;
    expect(a).toBe(b);
    expect(a).toMatch(/^[c-f][0-9a-f]:/);
  });
});
