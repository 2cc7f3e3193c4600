// One product's PSDI plan: the saved one (or the defaults when there is none yet), the form's
// edits over it, and saving — also on demand right before provisioning, so an operator who
// only changed the prefix never provisions with the old one.
import { useCallback, useState } from 'react';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useResource } from '../../lib/use-resource';
import {
  draftFromPlan,
  planFromDraft,
  samePlan,
  type PlanDraft,
  type ProductPlan,
} from './plan-draft';

export function usePlan(productId: string, defaultProfileId: string) {
  const api = useApi();
  const loaded = useResource(
    useCallback(() => api.provisioning.getPlan({ productId }), [api, productId]),
  );
  // What the last save answered, until a reload brings a newer answer from the app.
  const [justSaved, setJustSaved] = useState<{ plan: ProductPlan; over: unknown }>();
  const [edits, setEdits] = useState<PlanDraft>();
  const save = useAction<ProductPlan>();

  const savedPlan =
    justSaved && justSaved.over === loaded.value ? justSaved.plan : (loaded.value ?? null);
  const saved = draftFromPlan(savedPlan, defaultProfileId);
  const draft = edits ?? saved;
  const dirty = edits !== undefined && !samePlan(edits, saved);
  const exists = savedPlan !== null;

  const { run } = save;
  const loadedValue = loaded.value;
  /** Saves the draft when it differs from the saved plan; resolves to whether a plan is in place. */
  const ensureSaved = useCallback(async (): Promise<boolean> => {
    if (exists && !dirty) return true;
    return run(async () => {
      const plan = await api.provisioning.savePlan(planFromDraft(productId, draft));
      setJustSaved({ plan, over: loadedValue });
      setEdits(undefined);
      return plan;
    });
  }, [api, draft, dirty, exists, loadedValue, productId, run]);

  const { reload } = loaded;
  /** After provisioning: the app may have moved the plan on (a sequence's next number). */
  const refresh = useCallback(() => {
    if (dirty) return;
    setEdits(undefined);
    reload();
  }, [dirty, reload]);

  return {
    draft,
    dirty,
    exists,
    loading: loaded.loading && loaded.value === undefined,
    loadError: loaded.error,
    saving: save.busy,
    saveError: save.error,
    edit: (change: Partial<PlanDraft>) => setEdits({ ...draft, ...change }),
    discard: () => setEdits(undefined),
    ensureSaved,
    refresh,
  };
}

export type Plan = ReturnType<typeof usePlan>;
