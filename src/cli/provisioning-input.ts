// What `provision` provisions with: the profile (`--profile` id or file, else the plan's) and
// the PSDI plan (`--plan` JSON or CSV file, else the plan the app saved for the product), made
// into a run by the same use case as the app's. Read and checked before anything is opened, so
// bad files exit 2 naming the flag or the file's field and write nothing.
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { z } from 'zod';
import { knownProfiles, savedPlan } from '../core/usecases/provisioning/settings';
import { psdiPlanSchema } from '../core/usecases/provisioning/schema';
import type { PsdiAllocator } from '../core/audit/store';
import { describeFieldErrors, fieldErrors } from '../core/platform/field-errors';
import type { AnyProvisioningProfile } from '../core/ble/provisioning-profile';
import { loadProfileFile } from '../core/provisioning/profiles';
import { planRun, type PsdiPlan } from '../core/usecases/provisioning-setup';
import { SetupError } from '../core/usecases/errors';
import { UsageError } from './exit';

const planFileSchema = z.object({
  profileId: z.string().min(1).optional(),
  psdi: psdiPlanSchema,
});

export interface ProvisioningInput {
  profile: AnyProvisioningProfile;
  /** Undefined when the profile's board reports its own PSDI. */
  psdi: PsdiAllocator | undefined;
  /** A CSV list's rows left out, each as `<file> line <n>: <why>`, to print before reserving. */
  skipped: string[];
}

export async function provisioningInput(options: {
  dataDir: string;
  productId: string;
  profile?: string;
  plan?: string;
  /** `--plan-header`: the CSV file's first row is a header. */
  planHeader?: boolean;
}): Promise<ProvisioningInput> {
  if (options.planHeader && extname(options.plan ?? '').toLowerCase() !== '.csv')
    throw new UsageError('--plan-header', 'goes with a CSV file given to --plan');
  const plan = options.plan
    ? { ...(await readPlanFile(options.plan, options.planHeader)), source: basename(options.plan) }
    : await fromSavedPlan(options.dataDir, options.productId);
  const profileRef = options.profile ?? plan?.profileId;
  if (!profileRef) throw noPlan(options, plan !== undefined);
  // A profile file (a path ending in .json), else an id: built in, or loaded earlier in the app.
  const file = extname(profileRef).toLowerCase() === '.json';
  try {
    const { profile, psdi, skipped } = planRun({
      plan: { profileId: profileRef, psdi: plan?.psdi },
      profile: file ? await loadProfileFile(profileRef) : undefined,
      // The data folder's profiles are read only when an id must be looked up in them.
      profiles: file ? [] : await knownProfiles(options.dataDir),
    });
    return {
      profile,
      psdi,
      skipped: skipped.map((p) => `${plan?.source} line ${p.line}: ${p.message}, left out`),
    };
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    if (err.field === 'profileId')
      throw new UsageError('--profile', `${err.detail}, or give a profile .json file`);
    // Without a plan the only thing left to miss is the PSDI plan itself.
    if (err.field === 'psdi' || !plan) throw noPlan(options, false);
    if (err.field === 'psdi.header')
      throw new UsageError(plan.source, `${err.message} (--plan-header)`);
    throw new UsageError(plan.source, err.message);
  }
}

function noPlan(options: { productId: string; dataDir: string }, hasPlan: boolean): UsageError {
  return hasPlan
    ? new UsageError(
        '--profile',
        'is required: the plan names no profile (an id or a profile file)',
      )
    : new UsageError(
        '--plan',
        `is required: product ${options.productId} has no saved PSDI plan in ${options.dataDir} (a JSON plan or a CSV list of PSDIs)`,
      );
}

async function readPlanFile(
  path: string,
  header: boolean | undefined,
): Promise<{ profileId?: string; psdi: PsdiPlan }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError('--plan', `cannot read ${path} (${(err as Error).message})`);
  }
  const name = basename(path);
  if (extname(path).toLowerCase() === '.csv')
    return { psdi: { kind: 'list', csv: text, ...(header && { header }) } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(name, `not valid JSON (${(err as Error).message})`);
  }
  const parsed = planFileSchema.safeParse(json);
  if (!parsed.success) {
    const [first] = fieldErrors(parsed.error);
    throw new UsageError(
      `${name}: ${first?.field ?? '(file)'}`,
      first?.message ?? describeFieldErrors([]),
    );
  }
  return parsed.data;
}

async function fromSavedPlan(dataDir: string, productId: string) {
  const plan = await savedPlan(dataDir, productId);
  return plan && { profileId: plan.profileId, psdi: plan.psdi, source: 'provisioning-plans.json' };
}
