// What `provision` provisions with: the profile (`--profile` id or file, else the plan's) and
// the PSDI plan (`--plan` JSON or CSV file, else the plan the app saved for the product), made
// into a run by the same use case as the app's. Read and checked before anything is opened, so
// bad files exit 2 naming the flag or the file's field and write nothing.
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { PsdiAllocator } from '../core/audit/store';
import type { AnyProvisioningProfile } from '../core/ble/provisioning-profile';
import type { PsdiPlan } from '../core/usecases/provisioning-setup';
import { parsePlanFile, planFromFiles, savedPlan } from '../core/usecases/provisioning/settings';
import { SetupError } from '../core/usecases/errors';
import { UsageError } from './exit';

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
  try {
    const { profile, psdi, skipped } = await planFromFiles(options.dataDir, {
      profileId: profileRef,
      psdi: plan?.psdi,
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
  try {
    return parsePlanFile(text, basename(path), header);
  } catch (err) {
    if (err instanceof SetupError) throw new UsageError(err.field, err.detail);
    throw err;
  }
}

async function fromSavedPlan(dataDir: string, productId: string) {
  const plan = await savedPlan(dataDir, productId);
  return plan && { profileId: plan.profileId, psdi: plan.psdi, source: 'provisioning-plans.json' };
}
