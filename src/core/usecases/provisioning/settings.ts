// What the Provisioning page keeps in the data folder: a PSDI plan per product
// (`provisioning-plans.json`) and the profile files the user loaded (`profiles/`). Read by the
// app and by the `devicebench` command, so both provision with the same plans and profiles;
// the command may also name a plan file and a profile file of its own.
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { z } from 'zod';
import type { AnyProvisioningProfile } from '../../ble/provisioning-profile';
import { keyedRecord, keyedRecordSchema } from '../../keyed-record';
import { describeFieldErrors, fieldErrors } from '../../platform/field-errors';
import { builtInProfiles, loadProfileFile, parseProfile } from '../../provisioning/profiles';
import { SetupError } from '../errors';
import { planRun, type PlannedRun, type PsdiPlan, type SetupPlan } from '../provisioning-setup';
import { productPlanSchema, psdiPlanSchema } from './schema';
import { readJsonFile, updateJsonFile } from '../../json-file';

export type Plan = z.output<typeof productPlanSchema>;

const plansSchema = z.object({ plans: keyedRecordSchema(productPlanSchema) });
type PlansFile = z.output<typeof plansSchema>;

function plansFile(dataDir: string): string {
  return join(dataDir, 'provisioning-plans.json');
}

export function profilesDir(dataDir: string): string {
  return join(dataDir, 'profiles');
}

export async function readPlans(dataDir: string): Promise<PlansFile> {
  return (await readJsonFile(plansFile(dataDir), plansSchema, { plans: keyedRecord<Plan>() }))
    .value;
}

/** Keeps one product's plan, under the file's lock: other products' plans saved meanwhile stay. */
export async function writePlan(dataDir: string, plan: Plan): Promise<void> {
  await updateJsonFile(
    plansFile(dataDir),
    plansSchema,
    () => ({ plans: keyedRecord<Plan>() }),
    (file) => {
      file.plans[plan.productId] = plan;
    },
  );
}

/** The plan saved for a product, if any. */
export async function savedPlan(dataDir: string, productId: string): Promise<Plan | undefined> {
  return (await readPlans(dataDir)).plans[productId];
}

/** Profiles loaded earlier and kept in the data folder; one that no longer validates is skipped. */
export async function readSavedProfiles(
  dataDir: string,
): Promise<{ profile: AnyProvisioningProfile; source: string }[]> {
  const dir = profilesDir(dataDir);
  const files = await readdir(dir).catch(() => [] as string[]);
  const saved: { profile: AnyProvisioningProfile; source: string }[] = [];
  for (const file of files.filter((f) => f.endsWith('.json'))) {
    try {
      saved.push({
        profile: parseProfile(await readFile(join(dir, file), 'utf8'), file),
        source: file,
      });
    } catch {
      // Left on disk and simply not offered.
    }
  }
  return saved;
}

/** Every profile a plan or a record may name by id: built in, then those kept in the data folder. */
export async function knownProfiles(dataDir: string): Promise<AnyProvisioningProfile[]> {
  return [...builtInProfiles(), ...(await readSavedProfiles(dataDir)).map((s) => s.profile)];
}

/**
 * Plan → profile → PSDI allocator from files alone: the plan's profile is a profile file (a path
 * ending in .json, read and checked) or an id, built in or kept in the data folder, which is read
 * only when an id must be looked up in it.
 */
export async function planFromFiles(
  dataDir: string,
  plan: SetupPlan & { profileId: string },
): Promise<PlannedRun> {
  const file = extname(plan.profileId).toLowerCase() === '.json';
  return planRun({
    plan,
    profile: file ? await loadProfileFile(plan.profileId) : undefined,
    profiles: file ? [] : await knownProfiles(dataDir),
  });
}

const planFileSchema = z.object({
  profileId: z.string().min(1).optional(),
  psdi: psdiPlanSchema,
});

/**
 * A plan file's text: a CSV list of PSDIs (a `.csv` name; `header` when its first row is one),
 * else a JSON plan. Refused as a SetupError whose field is the file, or the file and its field.
 */
export function parsePlanFile(
  text: string,
  name: string,
  header: boolean | undefined,
): { profileId?: string; psdi: PsdiPlan } {
  if (extname(name).toLowerCase() === '.csv')
    return { psdi: { kind: 'list', csv: text, ...(header && { header }) } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SetupError(name, `not valid JSON (${(err as Error).message})`);
  }
  const parsed = planFileSchema.safeParse(json);
  if (!parsed.success) {
    const [first] = fieldErrors(parsed.error);
    throw new SetupError(
      `${name}: ${first?.field ?? '(file)'}`,
      first?.message ?? describeFieldErrors([]),
    );
  }
  return parsed.data;
}
