// A product's PSDI plan as its form holds it (text in every input) and back: numbers are
// checked here so a typo is named by its field (`psdi.start`), like the app's own errors.
import type { z } from 'zod';
import { AppError } from '../../../core/app/api';
import type { productPlanSchema } from '../../../core/usecases/provisioning/schema';

export type ProductPlan = z.output<typeof productPlanSchema>;
type PlanInput = z.input<typeof productPlanSchema>;
export type Strategy = ProductPlan['psdi']['kind'];

export const STRATEGY_LABELS: Record<Strategy, string> = {
  sequence: 'Sequence',
  random: 'Random',
  list: 'List from a CSV file',
};

export interface PlanDraft {
  profileId: string;
  kind: Strategy;
  prefix: string;
  start: string;
  width: string;
  alphabet: string;
  length: string;
  csv: string;
  csvFileName: string;
  column: string;
  /** The CSV's first row is a header (implied by a column name). */
  header: boolean;
}

export function draftFromPlan(plan: ProductPlan | null, defaultProfileId: string): PlanDraft {
  const draft: PlanDraft = {
    profileId: plan?.profileId ?? defaultProfileId,
    kind: 'sequence',
    prefix: '',
    start: '1',
    width: '6',
    alphabet: '0123456789ABCDEF',
    length: '16',
    csv: '',
    csvFileName: '',
    column: '',
    header: false,
  };
  const psdi = plan?.psdi;
  if (!psdi) return draft;
  if (psdi.kind === 'sequence')
    return {
      ...draft,
      kind: 'sequence',
      prefix: psdi.prefix,
      start: String(psdi.start),
      width: String(psdi.width),
    };
  if (psdi.kind === 'random')
    return {
      ...draft,
      kind: 'random',
      prefix: psdi.prefix,
      alphabet: psdi.alphabet,
      length: String(psdi.length),
    };
  return {
    ...draft,
    kind: 'list',
    csv: psdi.csv,
    csvFileName: 'saved list',
    column: psdi.column ?? '',
    header: psdi.header ?? false,
  };
}

function whole(text: string, field: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value))
    throw new AppError({
      code: 'invalid_input',
      message: `${field} must be a whole number`,
      fields: [{ field, message: 'must be a whole number' }],
    });
  return value;
}

/** The plan to save; throws an AppError naming the field when a number is not one. */
export function planFromDraft(productId: string, draft: PlanDraft): PlanInput {
  const base = { productId, profileId: draft.profileId };
  if (draft.kind === 'sequence')
    return {
      ...base,
      psdi: {
        kind: 'sequence',
        prefix: draft.prefix,
        start: whole(draft.start, 'psdi.start'),
        width: whole(draft.width, 'psdi.width'),
      },
    };
  if (draft.kind === 'random')
    return {
      ...base,
      psdi: {
        kind: 'random',
        prefix: draft.prefix,
        alphabet: draft.alphabet,
        length: whole(draft.length, 'psdi.length'),
      },
    };
  return {
    ...base,
    psdi: {
      kind: 'list',
      csv: draft.csv,
      ...(draft.column.trim() ? { column: draft.column.trim() } : {}),
      ...(draft.header && { header: true }),
    },
  };
}

/** The first PSDI a sequence plan gives, so the operator sees what will be written. */
export function sequencePreview(draft: PlanDraft): string | undefined {
  const start = Number(draft.start);
  const width = Number(draft.width);
  if (!Number.isInteger(start) || start < 0 || !Number.isInteger(width) || width < 1)
    return undefined;
  return `${draft.prefix}${String(start).padStart(width, '0')}`;
}

/** Same plan, whatever the form's untouched inputs of other strategies hold. */
export function samePlan(a: PlanDraft, b: PlanDraft): boolean {
  if (a.profileId !== b.profileId || a.kind !== b.kind) return false;
  const keys: (keyof PlanDraft)[] =
    a.kind === 'sequence'
      ? ['prefix', 'start', 'width']
      : a.kind === 'random'
        ? ['prefix', 'alphabet', 'length']
        : ['csv', 'column', 'header'];
  return keys.every((k) => a[k] === b[k]);
}
