// The ten dummy profiles `$commonProfile.getDummy` answers with. The platform does not show their
// content; these cover each rule: plain values, emoji names, a 12-digit number, a postal code
// with a hyphen, unset values and a failed retrieval.
import type { CommonProfile, CommonProfileKey } from './schema';

export interface DummyCase {
  title: string;
  profile: CommonProfile;
  /** Keys whose retrieval fails: null with a RETRIEVAL_FAILED error. */
  failing?: CommonProfileKey[];
}

const base: CommonProfile = {
  givenName: '花子',
  familyName: '山田',
  tel: '09012345678',
  postalCode: '1500002',
  bdayYear: 1990,
  bdayMonth: 4,
  bdayDay: 15,
};

export const DUMMY_CASES: DummyCase[] = [
  { title: 'Every value set, Japanese format', profile: base },
  {
    title: 'Names with emoji',
    profile: { ...base, givenName: '花子🌸', familyName: '👍山田' },
  },
  {
    title: 'Phone number of 12 digits (not Japanese)',
    profile: { ...base, tel: '+44 20 7946 0958' },
  },
  { title: 'Postal code with a hyphen', profile: { ...base, postalCode: '150-0002' } },
  {
    title: 'Nothing set',
    profile: {
      givenName: null,
      familyName: null,
      tel: null,
      postalCode: null,
      bdayYear: null,
      bdayMonth: null,
      bdayDay: null,
    },
  },
  { title: 'Latin names', profile: { ...base, givenName: 'Hanako', familyName: 'Yamada' } },
  { title: 'Phone number with hyphens (11 digits)', profile: { ...base, tel: '090-1234-5678' } },
  {
    title: 'Birthday partly set',
    profile: { ...base, bdayYear: null, bdayMonth: 12, bdayDay: 31 },
  },
  { title: 'Phone number retrieval fails', profile: base, failing: ['tel'] },
  {
    title: 'Foreign postal code and emoji-only name',
    profile: { ...base, givenName: '😀', postalCode: 'SW1A 1AA' },
  },
];
