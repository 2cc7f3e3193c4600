// What a provisioning run starts from, the same in every front end: the plan names a profile,
// the profile says whether this tool hands out the PSDI, the plan's PSDI plan becomes the
// allocator, and the platform names the product (docs/decisions.md, "One provisioning set-up").
// The app's provisioning service and `devicebench provision` both come through here; each keeps
// where the plan comes from (saved in the data folder, a `--plan` file) and how it names a field
// to its user. Every failure is a SetupError naming the field: `profileId`, `psdi`,
// `psdi.<field>`, `productId`.
import type { z } from 'zod';
import type { PsdiAllocator } from '../audit/store';
import type { ThingsClient } from '../platform/things/client';
import type { TrialProduct } from '../platform/things/schema';
import type { AnyProvisioningProfile } from '../ble/provisioning-profile';
import {
  createPsdiAllocator,
  parsePsdiCsv,
  PsdiError,
  type PsdiCsv,
  type PsdiCsvProblem,
} from '../audit/psdi';
import type { PsdiStrategy } from '../audit/psdi-strategy';
import type { ProductTarget } from '../provisioning/steps';
import { SetupError } from './errors';
import type { psdiPlanSchema } from './provisioning/schema';

/** A PSDI plan as the user keeps it: a strategy, or a CSV list as loaded, read into PSDIs when a run starts. */
export type PsdiPlan = z.output<typeof psdiPlanSchema>;

/** A plan as a front end found it; a `--plan` file may leave out the profile, a CSV list is only PSDIs. */
export interface SetupPlan {
  profileId?: string;
  psdi?: PsdiPlan;
}

export interface PlannedRun {
  profile: AnyProvisioningProfile;
  /** Undefined when the profile's board reports its own PSDI. */
  psdi: PsdiAllocator | undefined;
  /** A CSV list's rows left out, with their lines, to show before anything is reserved. */
  skipped: PsdiCsvProblem[];
}

export interface ProvisioningSetup extends PlannedRun {
  product: ProductTarget;
}

/**
 * Plan → profile → PSDI allocator. It needs files only, so a front end checks it before it opens
 * the radio or the platform.
 */
export function planRun(input: {
  plan: SetupPlan;
  /** A profile the front end loaded itself (a `--profile` file), over the plan's id. */
  profile?: AnyProvisioningProfile;
  /** The profiles a plan may name by id: built in, and those loaded and kept in the data folder. */
  profiles: AnyProvisioningProfile[];
}): PlannedRun {
  const profile = input.profile ?? findProfile(input.profiles, input.plan.profileId);
  return { profile, ...psdiAllocator(profile, input.plan.psdi) };
}

/** A profile by id; the field is `profileId`. */
export function findProfile(
  profiles: AnyProvisioningProfile[],
  id: string | undefined,
): AnyProvisioningProfile {
  if (id === undefined) throw new SetupError('profileId', 'is required: the plan names no profile');
  const found = profiles.find((p) => p.id === id);
  if (!found)
    throw new SetupError(
      'profileId',
      `no profile "${id}" (known: ${profiles.map((p) => p.id).join(', ')})`,
    );
  return found;
}

/**
 * The allocator a PSDI plan describes for this profile, checked now (a list that cannot be used,
 * a first PSDI too long for the profile); none when the board reports its own PSDI.
 */
export function psdiAllocator(
  profile: AnyProvisioningProfile,
  psdi: PsdiPlan | undefined,
): { psdi: PsdiAllocator | undefined; skipped: PsdiCsvProblem[] } {
  if (profile.psdi.source === 'device') return { psdi: undefined, skipped: [] };
  if (!psdi)
    throw new SetupError(
      'psdi',
      `is required: profile "${profile.id}" takes its PSDI from this tool`,
    );
  const { strategy, skipped } = readPsdiPlan(psdi, profile);
  try {
    return { psdi: createPsdiAllocator(strategy, profile.psdi.maxBytes), skipped };
  } catch (err) {
    if (err instanceof PsdiError)
      throw new SetupError(err.field ? `psdi.${err.field}` : 'psdi', err.message);
    throw err;
  }
}

/**
 * The plan's PSDI strategy and, for a CSV list, the rows left out with their lines, to be shown
 * before anything is reserved. A list that cannot be used throws, naming `psdi.<field>`.
 */
export function readPsdiPlan(
  psdi: PsdiPlan,
  profile: AnyProvisioningProfile,
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
    if (err instanceof PsdiError) throw new SetupError(`psdi.${err.field ?? 'csv'}`, err.message);
    throw err;
  }
  if (!csv.values.length)
    throw new SetupError(
      'psdi.csv',
      `has no usable PSDI${csv.problems.length ? `: ${csv.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}` : ''}`,
    );
  return { strategy: { kind: 'list', values: csv.values }, skipped: csv.problems };
}

/** A trial product of the environment by id; the field is `productId`. */
export async function findTrialProduct(
  things: Pick<ThingsClient, 'listTrialProducts'>,
  productId: string,
  /** The environment's name for the message; "this environment" when the caller has none. */
  environment?: string,
): Promise<TrialProduct> {
  const found = (await things.listTrialProducts()).find((p) => p.id === productId);
  if (!found)
    throw new SetupError(
      'productId',
      `no trial product ${productId} ${environment ? `on ${environment}` : 'in this environment'}`,
    );
  return found;
}

/** Plan → profile → product → PSDI allocator, for a front end that has the platform at hand. */
export async function provisioningSetup(input: {
  productId: string;
  plan: SetupPlan;
  profiles: AnyProvisioningProfile[];
  things: Pick<ThingsClient, 'listTrialProducts'>;
}): Promise<ProvisioningSetup> {
  // The files first: a plan that cannot run is refused before the platform is asked.
  const planned = planRun({ plan: input.plan, profiles: input.profiles });
  const found = await findTrialProduct(input.things, input.productId);
  const product: ProductTarget = {
    id: found.id,
    name: found.name,
    serviceUuid: found.serviceUuid,
    psdiServiceUuid: found.psdiServiceUuid,
    psdiCharacteristicUuid: found.psdiCharacteristicUuid,
  };
  return { ...planned, product };
}
