// The $commonProfile simulator: undefined versus null in `data`, each formatOptions rule with
// its default, dummy cases, EmbedError outside the client, and fill by data-liff-autocomplete.
import { describe, expect, it } from 'vitest';
import { DUMMY_CASES } from '../../../../src/core/platform/common-profile/dummy-cases';
import type {
  CommonProfile,
  CommonProfileScope,
} from '../../../../src/core/platform/common-profile/schema';
import {
  CommonProfileSimulator,
  fillForm,
  type SimulatorEnvironment,
} from '../../../../src/core/platform/common-profile/simulator';
import { EmbedError } from '../../../../src/core/platform/embed/embed-error';

const profile: CommonProfile = {
  givenName: '花子🌸',
  familyName: 'Yamada',
  tel: '+44 20 7946 0958',
  postalCode: '150-0002',
  bdayYear: 1990,
  bdayMonth: null,
  bdayDay: 15,
};
const inside: SimulatorEnvironment = { inClient: true, pluginInstalled: true };

function simulator(
  granted: (scopes: CommonProfileScope[]) => CommonProfileScope[] = (s) => s,
  environment = inside,
  failing: (keyof CommonProfile)[] = [],
) {
  const asked: CommonProfileScope[][] = [];
  const sim = new CommonProfileSimulator({
    environment,
    profile,
    failing,
    confirm: async (scopes) => {
      asked.push(scopes);
      return granted(scopes);
    },
  });
  return { sim, asked };
}

describe('$commonProfile.get', () => {
  it('leaves unrequested and withheld scopes undefined and unset ones null', async () => {
    const { sim, asked } = simulator((s) => s.filter((x) => x !== 'family-name'));
    const { data, error } = await sim.get(['family-name', 'bday-year', 'bday-month']);
    expect(asked).toEqual([['family-name', 'bday-year', 'bday-month']]);
    expect(data).toEqual({ bdayYear: 1990, bdayMonth: null });
    expect('familyName' in data).toBe(false);
    expect(data.givenName).toBeUndefined();
    expect(error).toEqual({});
  });

  it('removes emoji from names by default and keeps them with excludeEmojis false', async () => {
    const { sim } = simulator();
    expect((await sim.get(['given-name'])).data.givenName).toBe('花子');
    const kept = await sim.get(['given-name'], {
      formatOptions: { givenName: { excludeEmojis: false } },
    });
    expect(kept.data.givenName).toBe('花子🌸');
  });

  it('empties a phone number of 12 or more digits with an error, unless excludeNonJp is false', async () => {
    const { sim } = simulator();
    const excluded = await sim.get(['tel']);
    expect(excluded.data.tel).toBe('');
    expect(excluded.error.tel).toMatchObject({ code: 'NON_JP_PHONE_NUMBER' });
    const kept = await sim.get(['tel'], { formatOptions: { tel: { excludeNonJp: false } } });
    expect(kept).toEqual({ data: { tel: '+44 20 7946 0958' }, error: {} });
  });

  it('keeps an 11-digit number with hyphens', async () => {
    const result = await new CommonProfileSimulator({
      environment: inside,
      profile: { ...profile, tel: '090-1234-5678' },
      confirm: async (s) => s,
    }).get(['tel']);
    expect(result).toEqual({ data: { tel: '090-1234-5678' }, error: {} });
  });

  it('empties a postal code with non-digits with an error, unless digitsOnly is false', async () => {
    const { sim } = simulator();
    const excluded = await sim.get(['postal-code']);
    expect(excluded.data.postalCode).toBe('');
    expect(excluded.error.postalCode).toMatchObject({ code: 'NON_DIGIT_POSTAL_CODE' });
    const kept = await sim.get(['postal-code'], {
      formatOptions: { postalCode: { digitsOnly: false } },
    });
    expect(kept.data.postalCode).toBe('150-0002');
  });

  it('answers null with an error when retrieval fails', async () => {
    const { sim } = simulator(undefined, inside, ['bdayDay']);
    expect(await sim.get(['bday-day'])).toEqual({
      data: { bdayDay: null },
      error: { bdayDay: { code: 'RETRIEVAL_FAILED', message: expect.any(String) } },
    });
  });

  it('rejects with EmbedError outside the client, without the plugin, and for unknown scopes', async () => {
    await expect(
      simulator(undefined, { inClient: false, pluginInstalled: true }).sim.get(['tel']),
    ).rejects.toThrow(EmbedError);
    await expect(
      simulator(undefined, { inClient: true, pluginInstalled: false }).sim.get(['tel']),
    ).rejects.toThrow('plugin is not installed');
    await expect(simulator().sim.get(['email'])).rejects.toThrow('Unknown scope email');
    await expect(simulator().sim.get([])).rejects.toThrow(EmbedError);
  });
});

describe('$commonProfile.getDummy', () => {
  it('answers each of the ten cases with the same rules and no modal', async () => {
    const { sim, asked } = simulator();
    expect(DUMMY_CASES).toHaveLength(10);
    const first = await sim.getDummy(['given-name', 'postal-code'], {}, 1);
    expect(first.data).toEqual({ givenName: '花子', postalCode: '1500002' });
    const hyphen = await sim.getDummy(['postal-code'], {}, 4);
    expect(hyphen.data.postalCode).toBe('');
    const empty = await sim.getDummy(['tel', 'bday-year'], {}, 5);
    expect(empty.data).toEqual({ tel: null, bdayYear: null });
    const failing = await sim.getDummy(['tel'], {}, 9);
    expect(failing.error.tel?.code).toBe('RETRIEVAL_FAILED');
    expect(asked).toEqual([]);
  });

  it('rejects a caseId outside 1-10', async () => {
    const { sim } = simulator();
    for (const caseId of [0, 11, 1.5])
      await expect(sim.getDummy(['tel'], {}, caseId)).rejects.toThrow('caseId');
  });
});

describe('$commonProfile.fill', () => {
  it('writes values into fields named by data-liff-autocomplete, skipping undefined and null', () => {
    const fields: Record<string, { value: string; events: string[] }[]> = {
      'given-name': [{ value: '', events: [] }],
      'family-name': [{ value: 'typed', events: [] }],
      'bday-year': [
        { value: '', events: [] },
        { value: '', events: [] },
      ],
    };
    const root = {
      querySelectorAll(selector: string) {
        const scope = /data-liff-autocomplete="([^"]+)"/.exec(selector)![1]!;
        return (fields[scope] ?? []).map((f) => ({
          get value() {
            return f.value;
          },
          set value(v: string) {
            f.value = v;
          },
          dispatchEvent: (e: Event) => {
            f.events.push(e.type);
            return true;
          },
        }));
      },
    };
    fillForm({ givenName: '花子', familyName: null, bdayYear: 1990 }, root);
    expect(fields['given-name']![0]).toEqual({ value: '花子', events: ['input'] });
    expect(fields['family-name']![0]).toEqual({ value: 'typed', events: [] });
    expect(fields['bday-year']!.map((f) => f.value)).toEqual(['1990', '1990']);
  });
});
