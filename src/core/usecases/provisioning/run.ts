// Provisioning one board or a batch, the same for every front end: the run a front end set up
// (plan → profile → PSDI allocator → product, provisioning-setup.ts) on its central and audit
// log, with an image flashed to each board first when one is given. The app's service and
// `devicebench provision` both start their runs here and read the same typed events back: each
// step as a ProvisionEvent, a batch's boards and its end as BatchEvents.
import type { AuditStore, PsdiAllocator } from '../../audit/store';
import type { AnyProvisioningProfile } from '../../ble/provisioning-profile';
import type { McubootImage } from '../../ble/mcumgr/image-file';
import type { Advertisement, BleCentral } from '../../ble/port';
import type { ProvisioningRecord } from '../../audit/records';
import { errorMessage } from '../../errors/message';
import { startBatch, type BatchEvent, type BatchRun } from '../../provisioning/batch';
import {
  ProvisionError,
  ProvisionMismatchError,
  type ProductTarget,
  type ProvisionEvent,
} from '../../provisioning/steps';
import { findByAddress } from './find-board';
import { provisionBoard, type ProvisionResult } from '../../provisioning/workflow';
import { imageFlash } from '../firmware';

export interface ProvisioningRun {
  central: BleCentral;
  store: AuditStore;
  profile: AnyProvisioningProfile;
  product: ProductTarget;
  /** Undefined when the profile's board reports its own PSDI. */
  psdi: PsdiAllocator | undefined;
  /** What a board that does not fit the profile is matched against; default the built-in ones. */
  knownProfiles?: AnyProvisioningProfile[];
  /** A signed MCUboot image put on each board before anything is reserved for it. */
  image?: McubootImage;
}

/** Provisions and verifies one board; throws ProvisionError (step, board, cause, record). */
export function provisionOne(
  run: ProvisioningRun,
  board: Advertisement,
  options: { signal?: AbortSignal; onProgress: (event: ProvisionEvent) => void },
): Promise<ProvisionResult> {
  return provisionBoard({ ...boardRun(run), board, ...options });
}

/** How provisioning the board at an address ended, for a front end that reports rather than throws. */
export type BoardResult =
  | { state: 'not-found' }
  | { state: 'verified'; board: Advertisement; record: ProvisioningRecord }
  /** The board does not fit the profile: nothing was reserved; `matches` fit it. */
  | { state: 'skipped'; board: Advertisement; step: string; reason: string; matches: string[] }
  /** `stopped`: cut by `signal` before its record failed. */
  | {
      state: 'failed' | 'stopped';
      board: Advertisement;
      record: ProvisioningRecord | undefined;
      step: string | undefined;
      error: string;
    };

/** Finds the board at `address` advertising the profile's service, and provisions it. */
export async function provisionAt(
  run: ProvisioningRun,
  address: string,
  options: { signal: AbortSignal; onProgress: (event: ProvisionEvent) => void },
): Promise<BoardResult> {
  const board = await findByAddress(run.central, address, run.profile.service);
  if (!board) return { state: 'not-found' };
  try {
    const { record } = await provisionOne(run, board, options);
    return { state: 'verified', board, record };
  } catch (err) {
    if (err instanceof ProvisionMismatchError)
      return {
        state: 'skipped',
        board,
        step: err.step,
        reason: err.reason,
        matches: err.matching.map((p) => p.id),
      };
    const record = err instanceof ProvisionError ? err.record : undefined;
    return {
      state: options.signal.aborted && record?.state !== 'failed' ? 'stopped' : 'failed',
      board,
      record,
      step: err instanceof ProvisionError ? err.step : undefined,
      error: errorMessage(err),
    };
  }
}

/** Starts a batch over the boards in range; its boards and its end come as `onEvent`. */
export function startBatchRun(
  run: ProvisioningRun,
  options: {
    concurrency: number;
    /** Case-insensitive part of the advertised name. */
    name?: string;
    minRssi?: number;
    /** Start at most this many boards. */
    limit?: number;
    /** Boards of another profile do not count toward `limit`. */
    onlyMatching?: boolean;
    onEvent: (event: BatchEvent) => void;
  },
): BatchRun {
  return startBatch({
    ...boardRun(run),
    concurrency: options.concurrency,
    nameFilter: options.name,
    minRssi: options.minRssi,
    maxBoards: options.limit,
    onlyMatching: options.onlyMatching,
    onEvent: options.onEvent,
  });
}

function boardRun({ image, ...run }: ProvisioningRun) {
  return { ...run, flash: image && imageFlash(run.central, image) };
}
