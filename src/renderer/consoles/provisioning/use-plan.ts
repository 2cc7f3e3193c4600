// One product's PSDI plan: the saved one (or the defaults when there is none yet), the form's
// edits over it, and saving — also on demand right before provisioning, so an operator who
// only changed the prefix never provisions with the old one.
import { useCallback, useEffect, useState } from 'react';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useLoad } from '../../lib/use-load';
import {
  draftFromPlan,
  planFromDraft,
  samePlan,
  type PlanDraft,
  type ProductPlan,
} from './plan-draft';

export function usePlan(productId: string, defaultProfileId: string) {
  const api = useApi();
  const loaded = useLoad((api) => api.provisioning.getPlan({ productId }), [productId]);
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

  // The PSDI the allocator would hand out next for this draft, from the audit log itself: a
  // sequence that has run says 000017, not its start. Asked again after every provisioning.
  const [next, setNext] = useState<{
    key: string;
    psdi: string | null;
    skipped: { line: number; message: string }[];
  }>();
  const [provisioned, setProvisioned] = useState(0);
  const planKey = keyOf(productId, draft);
  useEffect(() => {
    if (planKey === undefined) return;
    const input = JSON.parse(planKey) as ReturnType<typeof planFromDraft>;
    let live = true;
    const timer = setTimeout(() => {
      api.provisioning.nextPsdi(input).then(
        ({ psdi, skipped = [] }) => live && setNext({ key: planKey, psdi, skipped }),
        () => live && setNext(undefined),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, planKey, provisioned]);
  const current = planKey !== undefined && next?.key === planKey ? next : undefined;

  const { reload } = loaded;
  /** After provisioning: the app may have moved the plan on (a sequence's next number). */
  const refresh = useCallback(() => {
    setProvisioned((n) => n + 1);
    if (dirty) return;
    setEdits(undefined);
    reload();
  }, [dirty, reload]);

  return {
    draft,
    dirty,
    exists,
    /** What the next reservation gets (null: the firmware derives it; undefined: unknown). */
    nextPsdi: current?.psdi,
    /** The CSV list's rows the plan leaves out, with their lines. */
    skipped: current?.skipped ?? [],
    loading: loaded.loading && loaded.value === undefined,
    loadError: loaded.error,
    saving: save.busy,
    saveError: save.error,
    // On the draft as it is when the change lands: a change made after an await (a loaded
    // profile's id) must not undo what was typed meanwhile.
    edit: (change: Partial<PlanDraft>) =>
      setEdits((current) => ({ ...(current ?? saved), ...change })),
    discard: () => setEdits(undefined),
    ensureSaved,
    refresh,
  };
}

export type Plan = ReturnType<typeof usePlan>;

/** The plan a draft stands for, as text to compare; undefined while a number is not one. */
function keyOf(productId: string, draft: PlanDraft): string | undefined {
  try {
    return JSON.stringify(planFromDraft(productId, draft));
  } catch {
    return undefined;
  }
}
