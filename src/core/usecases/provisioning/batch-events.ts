// A batch as the app tracks it and says it on the contract: its summary (counted as the
// Provisioning page reads it) and each board's step as a progress event.
import type { z } from 'zod';
import type { BatchRun, BatchSummary as CoreSummary } from '../../provisioning/batch';
import type { ProvisionEvent } from '../../provisioning/steps';
import type { batchSummarySchema, provisioningProgressSchema } from './schema';

type Progress = z.infer<typeof provisioningProgressSchema>;
type Summary = z.infer<typeof batchSummarySchema>;

export interface Batch {
  /** Set as soon as startBatch returns; its first events can come before. */
  run?: BatchRun;
  product: { id: string; name: string };
  /** The most boards it had taken on while it ran: what a stopped batch is counted against. */
  mostTaken: number;
  startedAt: number;
  finishedAt?: number;
  stopping: boolean;
}

export function batchSummary(runId: string, batch: Batch, done?: CoreSummary): Summary {
  // Boards seen but not taken on (filtered out, over the limit, stopped) are not the batch's;
  // boards of another profile are counted apart.
  const all = done?.boards ?? batch.run?.boards() ?? [];
  const boards = all.filter((b) => b.state !== 'skipped');
  const state = batch.finishedAt
    ? done?.stopped || batch.stopping
      ? 'stopped'
      : 'finished'
    : batch.stopping
      ? 'stopping'
      : 'running';
  // Boards a stop kept from starting are no longer the batch's, but a stopped batch is still
  // read against what it had taken on.
  if (state === 'running') batch.mostTaken = Math.max(batch.mostTaken, boards.length);
  return {
    runId,
    productId: batch.product.id,
    productName: batch.product.name,
    state,
    total:
      state === 'stopped' || state === 'stopping'
        ? Math.max(batch.mostTaken, boards.length)
        : boards.length,
    succeeded: boards.filter((b) => b.state === 'verified').length,
    failed: boards.filter((b) => b.state === 'failed').length,
    skipped: all.filter((b) => b.matchingProfiles !== undefined).length,
    inFlight: boards.filter((b) => b.state === 'running').length,
    startedAt: batch.startedAt,
    finishedAt: batch.finishedAt,
    storeError: batch.finishedAt ? undefined : batch.run?.storeError(),
  };
}

/**
 * A run's pairing that failed, in the window's words: two sentences naming only what the window
 * offers, said under the run's `pair` step (issue 45, point 3); the full words, with the
 * board's reason, go behind a "Details" toggle (docs/decisions/provisioning.md, "A board that
 * asks for pairing the profile does not state").
 */
export const PAIRING_FAILED =
  'pairing with the board failed, so no PSDI was reserved. Provision it again and type the passkey the board shows, or pair it first from the link card’s pairing form.';

export function progressOf(runId: string, event: ProvisionEvent): Progress {
  const base = {
    runId,
    deviceId: event.board.id,
    address: event.board.address,
    name: event.board.name,
    at: event.at,
  };
  switch (event.type) {
    case 'step-started':
      return {
        ...base,
        step: event.step,
        phase: 'started',
        attempt: event.attempt,
      };
    case 'step-finished':
      return {
        ...base,
        step: event.step,
        phase: 'finished',
        attempt: event.attempt,
      };
    case 'step-failed':
      return {
        ...base,
        step: event.step,
        phase: event.willRetry ? 'retrying' : 'failed',
        attempt: event.attempt,
        ...(event.pairing
          ? { message: PAIRING_FAILED, details: event.error }
          : { message: event.error }),
      };
    case 'record':
      return {
        ...base,
        step: 'record',
        phase:
          event.record.state === 'verified'
            ? 'done'
            : event.record.state === 'failed'
              ? 'failed'
              : 'finished',
        psdi: event.record.psdi,
        recordId: event.record.id,
        message: event.record.error ?? `record ${event.record.state}`,
      };
  }
}
