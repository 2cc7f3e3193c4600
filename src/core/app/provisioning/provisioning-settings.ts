// What the Provisioning page keeps in the data folder: a PSDI plan per product
// (`provisioning-plans.json`) and the profile files the user loaded (`profiles/`). Read by the
// app and by the `devicebench` command, so both provision with the same plan.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ProvisioningProfile } from '../../ble/provisioning-profile';
import { keyedRecord, keyedRecordSchema } from '../../keyed-record';
import { parseProfile } from '../../provisioning/profiles';
import {
  parsePsdiCsv,
  PsdiError,
  type PsdiCsv,
  type PsdiCsvProblem,
  type PsdiStrategy,
} from '../../provisioning/psdi';
import { productPlanSchema, type psdiPlanSchema } from '../contracts/provisioning';
import { AppFailure } from '../errors';
import { readJsonFile, writeJsonFile } from '../json-file';

export type Plan = z.output<typeof productPlanSchema>;
export type PsdiPlan = z.output<typeof psdiPlanSchema>;

const plansSchema = z.object({ plans: keyedRecordSchema(productPlanSchema) });
type PlansFile = z.output<typeof plansSchema>;

export function plansFile(dataDir: string): string {
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

/** Profiles loaded earlier and kept in the data folder; one that no longer validates is skipped. */
export async function readSavedProfiles(
  dataDir: string,
): Promise<{ profile: ProvisioningProfile; source: string }[]> {
  const dir = profilesDir(dataDir);
  const files = await readdir(dir).catch(() => [] as string[]);
  const saved: { profile: ProvisioningProfile; source: string }[] = [];
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

/** The plan's PSDI strategy for the allocator; a CSV list is parsed and checked here. */
export function planStrategy(psdi: PsdiPlan, profile: ProvisioningProfile): PsdiStrategy {
  return readPlan(psdi, profile).strategy;
}

/**
 * The plan's PSDI strategy and, for a CSV list, the rows left out with their lines, to be shown
 * before anything is reserved. A list that cannot be used throws, naming `psdi.<field>`.
 */
export function readPlan(
  psdi: PsdiPlan,
  profile: ProvisioningProfile,
): { strategy: PsdiStrategy; skipped: PsdiCsvProblem[] } {
  if (psdi.kind !== 'list') return { strategy: psdi, skipped: [] };
  let csv: PsdiCsv;
  try {
    csv = parsePsdiCsv(psdi.csv, {
      column: psdi.column,
      header: psdi.header,
      maxBytes: profile.psdi.maxBytes,
    });
  } catch (err) {
    if (err instanceof PsdiError) throw AppFailure.field(`psdi.${err.field ?? 'csv'}`, err.message);
    throw err;
  }
  if (!csv.values.length)
    throw AppFailure.field(
      'psdi.csv',
      `has no usable PSDI${csv.problems.length ? `: ${csv.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}` : ''}`,
    );
  return { strategy: { kind: 'list', values: csv.values }, skipped: csv.problems };
}
