// What a reconcile did to a record, apart from the reconcile itself: the app's contract names
// these in its answer, and the renderer must not import the BLE code reconcile.ts stands on.

/** `settled`: another station or process settled the record meanwhile; nothing was done. */
export const RECONCILE_ACTIONS = [
  'verified',
  'finished',
  'released',
  'failed',
  'not-found',
  'settled',
] as const;

export type ReconcileAction = (typeof RECONCILE_ACTIONS)[number];
