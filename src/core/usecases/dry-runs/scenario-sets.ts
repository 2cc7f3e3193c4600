// The scenario set a dry run runs, the same for the app and the CLI: the product's saved set as
// the platform keeps it, or a draft never saved. A refusal names the set's source field
// (`set.source`) or says the platform's answer cannot be run.
import type { ThingsClient } from '../../platform/things/client';
import {
  scenarioSetInputSchema,
  type ScenarioSet,
  type ScenarioSetInput,
} from '../../platform/things/schema';
import { describeFieldErrors, fieldErrors } from '../../platform/field-errors';
import { PlatformError } from '../../platform/http';
import { runnableSetSchema, type RunnableSet } from '../../scenario/schema';
import { PlatformAnswerError, SetupError } from '../errors';

/** The product's saved set, as the engine runs it. */
export async function loadSavedSet(things: ThingsClient, productId: string): Promise<RunnableSet> {
  return savedSet(await things.getScenarioSet(productId).catch(noSavedSet));
}

function noSavedSet(err: unknown): never {
  if (err instanceof PlatformError && err.status === 404)
    throw new SetupError(
      'set.source',
      'the product has no saved scenario set on the platform: save it first, or run the draft',
    );
  throw err;
}

/** The platform's answer is parsed tolerantly; the engine needs the types it knows. */
function savedSet(set: ScenarioSet): RunnableSet {
  const parsed = runnableSetSchema.safeParse(set);
  if (!parsed.success)
    throw new PlatformAnswerError(
      `The saved scenario set cannot be run: ${describeFieldErrors(fieldErrors(parsed.error))}`,
    );
  return parsed.data;
}

/** A draft was never saved: revision 0, and scenarios without an id get `draft-<n>`. */
export function draftSet(draft: ScenarioSetInput): RunnableSet {
  return {
    autoClose: draft.autoClose,
    suppressionInterval: draft.suppressionInterval,
    revision: 0,
    scenarios: draft.scenarios.map((s, i) => ({
      id: s.id ?? `draft-${i + 1}`,
      trigger: s.trigger,
      actions: s.actions,
    })),
  };
}

/** A scenario set file as the editor exports it; a refusal names the file and the set's field. */
export function parseSetFile(name: string, text: string): ScenarioSetInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SetupError(name, `not valid JSON (${(err as Error).message})`);
  }
  const parsed = scenarioSetInputSchema.safeParse(json);
  if (!parsed.success) {
    const [first] = fieldErrors(parsed.error);
    throw new SetupError(`${name}: ${first?.field}`, first?.message ?? 'invalid');
  }
  return parsed.data;
}
