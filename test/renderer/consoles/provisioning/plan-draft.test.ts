import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../src/core/app/api';
import {
  draftFromPlan,
  planFromDraft,
  samePlan,
  sequencePreview,
} from '../../../../src/renderer/consoles/provisioning/plan-draft';

describe('plan-draft', () => {
  it('a product without a plan starts as a sequence with the default profile', () => {
    const draft = draftFromPlan(null, 'profile-1');
    expect(draft).toMatchObject({
      profileId: 'profile-1',
      kind: 'sequence',
      start: '1',
      width: '6',
    });
  });

  it('a saved plan round-trips through the form', () => {
    const plan = {
      productId: 'p1',
      profileId: 'profile-2',
      psdi: { kind: 'random' as const, prefix: 'SN-', alphabet: 'ABC', length: 8 },
    };
    const draft = draftFromPlan(plan as never, 'profile-1');
    expect(draft).toMatchObject({ kind: 'random', prefix: 'SN-', alphabet: 'ABC', length: '8' });
    expect(planFromDraft('p1', draft)).toEqual(plan);
  });

  it('names the field whose number is not a whole number', () => {
    const draft = { ...draftFromPlan(null, 'profile-1'), width: '6.5' };
    let thrown: unknown;
    try {
      planFromDraft('p1', draft);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).fields).toEqual([
      { field: 'psdi.width', message: 'must be a whole number' },
    ]);
  });

  it('a list plan leaves out an empty column', () => {
    const draft = { ...draftFromPlan(null, 'profile-1'), kind: 'list' as const, csv: 'psdi\nA1\n' };
    expect(planFromDraft('p1', draft).psdi).toEqual({ kind: 'list', csv: 'psdi\nA1\n' });
    expect(planFromDraft('p1', { ...draft, column: ' psdi ' }).psdi).toEqual({
      kind: 'list',
      csv: 'psdi\nA1\n',
      column: 'psdi',
    });
  });

  it('previews the first PSDI of a sequence, and nothing for a bad number', () => {
    const draft = { ...draftFromPlan(null, 'profile-1'), prefix: 'SN-', start: '42', width: '5' };
    expect(sequencePreview(draft)).toBe('SN-00042');
    expect(sequencePreview({ ...draft, width: '0' })).toBeUndefined();
    expect(sequencePreview({ ...draft, start: 'x' })).toBeUndefined();
  });

  it('compares only the inputs of the chosen strategy', () => {
    const a = draftFromPlan(null, 'profile-1');
    expect(samePlan(a, { ...a, alphabet: 'XYZ' })).toBe(true);
    expect(samePlan(a, { ...a, start: '2' })).toBe(false);
    expect(samePlan(a, { ...a, profileId: 'other' })).toBe(false);
  });
});
