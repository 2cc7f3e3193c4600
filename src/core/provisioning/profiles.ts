// Where provisioning profiles come from: the built-in JSON files in resources/profiles/ and
// files the user loads. Anything malformed is refused with the file and the field path.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RESOURCES_DIR } from '../resources';
import {
  profileSchemaFor,
  type AnyProvisioningProfile,
  type ProvisioningProfile,
} from '../ble/provisioning-profile';

const builtInProfileDir = join(RESOURCES_DIR, 'profiles');

export interface ProfileIssue {
  /** Dotted field path, e.g. `characteristics.control`; empty for the file as a whole. */
  path: string;
  message: string;
}

export class ProfileError extends Error {
  override name = 'ProfileError';
  constructor(
    /** The file name, or the label given for pasted text. */
    readonly source: string,
    readonly issues: ProfileIssue[],
  ) {
    super(
      `${source}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`,
    );
  }
}

/** Parses and validates one profile; `source` names it in errors (a file name or "pasted"). */
export function parseProfile(text: string, source: string): AnyProvisioningProfile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProfileError(source, [
      { path: '', message: `not valid JSON (${(err as Error).message})` },
    ]);
  }
  const parsed = profileSchemaFor(json).safeParse(json);
  if (!parsed.success)
    throw new ProfileError(
      source,
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  if (parsed.data.kind === 'mcumgr-settings') return parsed.data;
  const issues = layoutIssues(parsed.data);
  if (issues.length) throw new ProfileError(source, issues);
  return parsed.data;
}

export async function loadProfileFile(path: string): Promise<AnyProvisioningProfile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ProfileError(basename(path), [
      { path: '', message: `cannot be read (${(err as Error).message})` },
    ]);
  }
  return parseProfile(text, basename(path));
}

/** Every profile shipped with the app, by id; a broken or duplicate built-in is a bug: throws. */
export function builtInProfiles(dir = builtInProfileDir): AnyProvisioningProfile[] {
  const profiles: AnyProvisioningProfile[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const profile = parseProfile(readFileSync(join(dir, name), 'utf8'), name);
    if (profiles.some((p) => p.id === profile.id))
      throw new ProfileError(name, [
        { path: 'id', message: `"${profile.id}" is used by another profile` },
      ]);
    profiles.push(profile);
  }
  return profiles;
}

/** The GATT profiles among `profiles`: those a board's GATT layout can be matched against. */
export function gattProfiles(profiles: readonly AnyProvisioningProfile[]): ProvisioningProfile[] {
  return profiles.filter((p): p is ProvisioningProfile => p.kind !== 'mcumgr-settings');
}

/**
 * What the schema cannot see field by field: every characteristic distinct from the others and
 * from the service (a board could not tell two writes apart), and 128-bit UUIDs throughout, as
 * custom GATT attributes must be.
 */
function layoutIssues(profile: ProvisioningProfile): ProfileIssue[] {
  const issues: ProfileIssue[] = [];
  const seen = new Map<string, string>([[profile.service, 'service']]);
  if (profile.service.length !== 32)
    issues.push({ path: 'service', message: 'must be a 128-bit UUID' });
  for (const [name, uuid] of Object.entries(profile.characteristics)) {
    const path = `characteristics.${name}`;
    if (uuid.length !== 32) issues.push({ path, message: 'must be a 128-bit UUID' });
    const other = seen.get(uuid);
    if (other) issues.push({ path, message: `is the same UUID as ${other}` });
    else seen.set(uuid, path);
  }
  return issues;
}
