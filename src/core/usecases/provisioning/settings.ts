// What the Provisioning page keeps in the data folder: a PSDI plan per product
// (`provisioning-plans.json`) and the profile files the user loaded (`profiles/`). Read by the
// app and by the `devicebench` command, so both provision with the same plans and profiles.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AnyProvisioningProfile } from '../../ble/provisioning-profile';
import { keyedRecord, keyedRecordSchema } from '../../keyed-record';
import { builtInProfiles, parseProfile } from '../../provisioning/profiles';
import { productPlanSchema } from './schema';
import { readJsonFile, writeJsonFile } from '../../json-file';

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

export async function writePlans(dataDir: string, file: PlansFile): Promise<void> {
  await writeJsonFile(plansFile(dataDir), file);
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
