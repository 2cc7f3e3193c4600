// Unsaved scenario-set drafts by product, for as long as the window is open, reloads included
// (the tab's session storage): the Device service console and the Scenarios page show the same
// editor, so a draft begun on one page is there on the other, and neither leaving a page nor a
// reload loses it.
import type { Json } from './scenario-draft';

export interface UnsavedDraft {
  value: Json;
  text: string;
  syntaxError?: string;
}

const KEY_PREFIX = 'devicebench.unsaved-scenario-set.';

function isUnsavedDraft(value: unknown): value is UnsavedDraft {
  return (
    typeof value === 'object' &&
    value !== null &&
    'value' in value &&
    'text' in value &&
    typeof value.text === 'string'
  );
}

export function unsavedDraft(productId: string): UnsavedDraft | undefined {
  try {
    const kept: unknown = JSON.parse(sessionStorage.getItem(KEY_PREFIX + productId) ?? 'null');
    return isUnsavedDraft(kept) ? kept : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the draft while it differs from what the platform holds (`baseline`), else forgets it. */
export function keepUnsavedDraft(productId: string, draft: UnsavedDraft, baseline: string): void {
  try {
    if (draft.text === baseline) sessionStorage.removeItem(KEY_PREFIX + productId);
    else sessionStorage.setItem(KEY_PREFIX + productId, JSON.stringify(draft));
  } catch {
    // A full or blocked storage only means the draft does not outlive this page.
  }
}
