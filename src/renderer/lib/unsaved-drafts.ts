// Unsaved scenario-set drafts by product, for as long as the window is open: the Device service
// console and the Scenarios page show the same editor, so a draft begun on one page is there on
// the other, and leaving a page does not lose it.
import type { Json } from './scenario-draft';

export interface UnsavedDraft {
  value: Json;
  text: string;
  syntaxError?: string;
}

const drafts = new Map<string, UnsavedDraft>();

export function unsavedDraft(productId: string): UnsavedDraft | undefined {
  return drafts.get(productId);
}

/** Keeps the draft while it differs from what the platform holds (`baseline`), else forgets it. */
export function keepUnsavedDraft(productId: string, draft: UnsavedDraft, baseline: string): void {
  if (draft.text === baseline) drafts.delete(productId);
  else drafts.set(productId, draft);
}
