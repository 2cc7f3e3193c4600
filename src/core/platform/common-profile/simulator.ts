// A stand-in for the embedded browser's `$commonProfile` methods
// (docs/platform-api.md#common-profile), so a form can be built and tried outside the messaging
// client: `get` asks a confirmation callback (the modal) which scopes the user grants, `getDummy`
// answers a numbered dummy case, `fill` writes values into fields whose `data-liff-autocomplete`
// names the scope. Browser-safe.
import { EmbedError } from '../embed/embed-error';
import { DUMMY_CASES } from './dummy-cases';
import { formatValue } from './format';
import {
  COMMON_PROFILE_SCOPES,
  isCommonProfileScope,
  scopeKey,
  type CommonProfile,
  type CommonProfileKey,
  type CommonProfileResult,
  type CommonProfileScope,
  type FormatOptions,
} from './schema';

export interface SimulatorEnvironment {
  /** Inside the messaging client's embedded browser. */
  inClient: boolean;
  /** The common-profile plugin installed as documented. */
  pluginInstalled: boolean;
}

export interface CommonProfileSimulatorOptions {
  environment: SimulatorEnvironment;
  /** The user's stored common profile: null where they set nothing. */
  profile: CommonProfile;
  /** Keys whose retrieval fails. */
  failing?: CommonProfileKey[];
  /** The confirmation modal: answers the scopes the user allowed. */
  confirm: (scopes: CommonProfileScope[]) => Promise<CommonProfileScope[]>;
}

export interface GetOptions {
  formatOptions?: FormatOptions;
}

/** What `get` answers for a stored profile, the requested and the granted scopes. */
function resolveProfile(
  profile: CommonProfile,
  requested: readonly CommonProfileScope[],
  granted: readonly CommonProfileScope[],
  options: GetOptions = {},
  failing: readonly CommonProfileKey[] = [],
): CommonProfileResult {
  const result: CommonProfileResult = { data: {}, error: {} };
  const data = result.data as Record<CommonProfileKey, CommonProfile[CommonProfileKey]>;
  for (const scope of requested) {
    if (!granted.includes(scope)) continue;
    const key = scopeKey(scope);
    if (failing.includes(key)) {
      data[key] = null;
      result.error[key] = {
        code: 'RETRIEVAL_FAILED',
        message: `The ${scope} value could not be retrieved.`,
      };
      continue;
    }
    const stored = profile[key];
    if (stored === null) {
      data[key] = null;
      continue;
    }
    const formatted = formatValue(key, stored, options.formatOptions);
    data[key] = formatted.value;
    if (formatted.error) result.error[key] = formatted.error;
  }
  return result;
}

function checkScopes(scopes: unknown): CommonProfileScope[] {
  if (!Array.isArray(scopes) || scopes.length === 0)
    throw new EmbedError('INVALID_ARGUMENT', 'scopes must be a non-empty array of scope names.');
  const unknown = scopes.filter((s) => typeof s !== 'string' || !isCommonProfileScope(s));
  if (unknown.length)
    throw new EmbedError(
      'INVALID_ARGUMENT',
      `Unknown scope ${unknown.map(String).join(', ')}; known: ${COMMON_PROFILE_SCOPES.join(', ')}.`,
    );
  return [...new Set(scopes as CommonProfileScope[])];
}

export class CommonProfileSimulator {
  constructor(private readonly options: CommonProfileSimulatorOptions) {}

  private checkEnvironment(): void {
    const { inClient, pluginInstalled } = this.options.environment;
    if (!inClient)
      throw new EmbedError(
        'FORBIDDEN',
        '$commonProfile is only available in the embedded browser of the messaging client.',
      );
    if (!pluginInstalled)
      throw new EmbedError('FORBIDDEN', 'The common profile plugin is not installed correctly.');
  }

  async get(scopes: string[], options: GetOptions = {}): Promise<CommonProfileResult> {
    this.checkEnvironment();
    const requested = checkScopes(scopes);
    const granted = await this.options.confirm(requested);
    return resolveProfile(this.options.profile, requested, granted, options, this.options.failing);
  }

  async getDummy(
    scopes: string[],
    options: GetOptions,
    caseId: number,
  ): Promise<CommonProfileResult> {
    this.checkEnvironment();
    const requested = checkScopes(scopes);
    const dummy = Number.isInteger(caseId) ? DUMMY_CASES[caseId - 1] : undefined;
    if (!dummy)
      throw new EmbedError(
        'INVALID_ARGUMENT',
        `caseId must be a whole number from 1 to ${DUMMY_CASES.length}.`,
      );
    return resolveProfile(dummy.profile, requested, requested, options, dummy.failing);
  }
}

/** The part of a document `fill` needs, so it runs on a real page and in a unit test. */
export interface FillRoot {
  querySelectorAll(
    selector: string,
  ): Iterable<{ value: string; dispatchEvent?(event: Event): boolean }>;
}

/**
 * Writes each value that is neither undefined nor null into every field of `root` whose
 * `data-liff-autocomplete` is the value's scope name, and tells the page with an input event.
 */
export function fillForm(profile: Partial<CommonProfile>, root: FillRoot): void {
  for (const scope of COMMON_PROFILE_SCOPES) {
    const value = profile[scopeKey(scope)];
    if (value === undefined || value === null) continue;
    for (const field of root.querySelectorAll(`[data-liff-autocomplete="${scope}"]`)) {
      field.value = String(value);
      field.dispatchEvent?.(new Event('input', { bubbles: true }));
    }
  }
}
