// Provisioning profiles from the built-in folder, from files and from pasted text.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  builtInProfiles,
  loadProfileFile,
  parseProfile,
  ProfileError,
} from '../../../src/core/provisioning/profiles';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'devicebench-profiles-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const good = () => ({
  id: 'acme-v2',
  name: 'ACME v2',
  service: '11110000-0000-4000-8000-000000000000',
  characteristics: {
    serviceUuid: '11110001-0000-4000-8000-000000000000',
    psdiServiceUuid: '11110002-0000-4000-8000-000000000000',
    psdiCharacteristicUuid: '11110003-0000-4000-8000-000000000000',
    psdi: '11110004-0000-4000-8000-000000000000',
    control: '11110005-0000-4000-8000-000000000000',
    status: '11110006-0000-4000-8000-000000000000',
  },
});

function issuesOf(fn: () => unknown): { source: string; issues: ProfileError['issues'] } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return { source: (err as ProfileError).source, issues: (err as ProfileError).issues };
  }
  throw new Error('expected a ProfileError');
}

describe('provisioning profiles', () => {
  it('ships devicebench-v1, its device-PSDI and level-4 variants and the platform starter', () => {
    const profiles = builtInProfiles();
    expect(
      profiles.map((p) => [
        p.id,
        p.psdi.source,
        'readPermission' in p.psdi && p.psdi.readPermission,
      ]),
    ).toEqual([
      ['devicebench-v1-device-psdi', 'device', 'open'],
      ['devicebench-v1', 'tool', 'open'],
      ['platform-starter', 'device', 'encrypted'],
      ['secure-devicebench-v1', 'tool', 'sc'],
      ['zephyr-mcumgr-settings', 'tool', false],
    ]);
    expect(profiles[1]?.service).toBe('8f1d00006b4e4c5a9d3e2a7c5b1e0f00');
    // Boards that keep their PSDI behind level 4 (the Zephyr Secure one) have a profile shipped;
    // it sorts after devicebench-v1, which stays the first tool-PSDI profile, the app's default.
    expect(profiles[3]).toMatchObject({ security: { level: 4 } });
  });

  it('parses a good profile with defaults filled in', () => {
    const profile = parseProfile(JSON.stringify(good()), 'pasted');
    expect(profile).toMatchObject({
      id: 'acme-v2',
      uuidEncoding: 'bytes',
      psdi: { source: 'tool', maxBytes: 20 },
      commit: { value: '01' },
      characteristics: { control: '11110005000040008000000000000000' },
    });
  });

  it('names the file and each bad field path', () => {
    const bad = {
      ...good(),
      id: 'Bad Id',
      characteristics: { ...good().characteristics, control: 'nope' },
      psdi: { maxBytes: 0 },
    };
    const { source, issues } = issuesOf(() => parseProfile(JSON.stringify(bad), 'acme.json'));
    expect(source).toBe('acme.json');
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'id', message: 'must be lowercase letters, digits and dashes' },
        { path: 'characteristics.control', message: 'must be a UUID (16-, 32- or 128-bit hex)' },
        expect.objectContaining({ path: 'psdi.maxBytes' }),
      ]),
    );
    expect(() => parseProfile(JSON.stringify(bad), 'acme.json')).toThrow(/^acme\.json: /);
  });

  it('refuses characteristics that share a UUID, and short UUIDs', () => {
    const clash = good();
    clash.characteristics.status = clash.characteristics.control;
    clash.characteristics.psdi = '2a00';
    expect(issuesOf(() => parseProfile(JSON.stringify(clash), 'clash.json')).issues).toEqual([
      { path: 'characteristics.psdi', message: 'must be a 128-bit UUID' },
      { path: 'characteristics.status', message: 'is the same UUID as characteristics.control' },
    ]);
  });

  it('reports JSON syntax errors and unreadable files with the file name', async () => {
    expect(issuesOf(() => parseProfile('{"id": ', 'broken.json')).issues[0]?.message).toMatch(
      /^not valid JSON/,
    );
    await expect(loadProfileFile(join(dir, 'missing.json'))).rejects.toThrow(
      /^missing\.json: cannot be read/,
    );
  });

  it('loads a user profile from a file', async () => {
    const file = join(dir, 'acme.json');
    writeFileSync(file, JSON.stringify(good()));
    expect((await loadProfileFile(file)).id).toBe('acme-v2');
  });

  it('refuses a folder whose profiles share an id', () => {
    writeFileSync(join(dir, 'a.json'), JSON.stringify(good()));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...good(), name: 'Copy' }));
    expect(() => builtInProfiles(dir)).toThrow('b.json: id: "acme-v2" is used by another profile');
  });
});
