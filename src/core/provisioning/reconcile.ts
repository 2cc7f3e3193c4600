// Settling a record a crash or kill left unfinished: look at the board, then finish, release
// or fail the record by what the board actually carries. A reserved PSDI is only ever finished
// on its own board or released, never handed to another board.
import type { Advertisement, BleCentral, BleConnection } from '../ble/port';
import { normalizeUuid } from '../ble/port';
import { InvalidTransitionError } from '../audit/errors';
import type { ProvisioningRecord } from '../audit/records';
import type { AuditStore } from '../audit/store';
import {
  STATUS,
  type AnyProvisioningProfile,
  type ProvisioningProfile,
} from '../ble/provisioning-profile';
import {
  ProvisionError,
  resolveTiming,
  StepReporter,
  withStepTimeout,
  type ProgressListener,
  type TimingInput,
} from './steps';
import { errorMessage } from '../errors/message';
import type { BoardFinding } from './board-finding';
import type { ReconcileAction } from './reconcile-actions';
import { inspectSettingsBoard } from './reconcile-settings';
import { findBoard, readBackPsdi } from './verify';
import { resumeProvisioning } from './workflow';

type BlankChoice = 'finish' | 'release';

export interface ReconcileOptions {
  central: BleCentral;
  store: AuditStore;
  /** The profile the record was provisioned with (`record.profileId`). */
  profile: AnyProvisioningProfile;
  record: ProvisioningRecord | number;
  /** The operator's choice for a board found uncommitted: same PSDI again, or give it back. */
  whenBlank:
    | BlankChoice
    | ((finding: BoardFinding & { kind: 'blank' }) => BlankChoice | Promise<BlankChoice>);
  timing?: TimingInput;
  onProgress?: ProgressListener;
}

export interface ReconcileOutcome {
  /** `settled`: another station or process settled the record meanwhile; nothing was done. */
  action: ReconcileAction;
  /** The record afterwards (unchanged when the board was not found or it was settled). */
  record: ProvisioningRecord;
  /** What the board carries; none when the record was settled before it was looked at. */
  finding?: BoardFinding;
  /** One sentence for the operator. */
  message: string;
}

/** Records reconcile can work on: unfinished ones, and failures that may have reached the board. */
export function needsReconciling(record: ProvisioningRecord): boolean {
  return (
    record.state === 'reserved' ||
    record.state === 'written' ||
    (record.state === 'failed' && record.psdiHeld)
  );
}

/** The clock time of `at` on this machine, as an operator at the line reads it: `23:51`. */
function clockTime(at: number): string {
  return new Date(at).toTimeString().slice(0, 5);
}

/**
 * A record settled by someone else since it was listed (another station's reconcile, or a killed
 * station's last commit landing late) is settled, not a failure: said and left alone
 * (docs/decisions/provisioning.md, "Reconcile beside reconcile"). Who settled it is named where
 * the record says (an operator's release); a run's or reconcile's keeps no station.
 */
export function settledMeanwhile(
  record: ProvisioningRecord,
  finding?: BoardFinding,
): ReconcileOutcome {
  const last = record.history.at(-1);
  const by = record.state === 'released' && last?.kind === 'released' ? last.station : undefined;
  return {
    action: 'settled',
    record,
    finding,
    message: `record #${record.id}: already ${record.state}${by ? ` by ${by}` : ''} at ${clockTime(record.updatedAt)} — nothing to do`,
  };
}

export async function reconcile(options: ReconcileOptions): Promise<ReconcileOutcome> {
  const { store, profile } = options;
  const id = typeof options.record === 'number' ? options.record : options.record.id;
  const record = await store.get(id);
  if (!record) throw new Error(`no provisioning record #${id}`);
  if (!needsReconciling(record)) return settledMeanwhile(record);
  if (record.profileId !== profile.id)
    throw new Error(
      `record #${id} was provisioned with profile ${record.profileId}, not ${profile.id}`,
    );
  const timing = resolveTiming(options.timing);
  const reporter = new StepReporter(
    () => ({ id: record.boardId, address: record.boardAddress }),
    options.onProgress,
  );

  const finding = await reporter.run('reconcile', 1, () =>
    profile.kind === 'mcumgr-settings'
      ? inspectSettingsBoard(options.central, record, profile, timing)
      : inspectBoard(options.central, record, profile, timing),
  );
  const outcome = (
    action: ReconcileAction,
    next: ProvisioningRecord,
    message: string,
  ): ReconcileOutcome => ({
    action,
    record: next,
    finding,
    message,
  });

  // Another station may settle the record while its board is looked at: its change then
  // refuses this one, and the record says it is done.
  const settle = async (): Promise<ReconcileOutcome> => {
    switch (finding.kind) {
      case 'not-found':
        return outcome(
          'not-found',
          record,
          `board ${record.boardAddress} did not show up within ${timing.select.timeoutMs} ms; record #${id} is unchanged`,
        );
      case 'carries-psdi': {
        let next = record;
        if (next.state !== 'written') next = reporter.record(await store.markWritten(id));
        next = reporter.record(await store.markVerified(id));
        return outcome(
          'verified',
          next,
          `the board carries PSDI "${record.psdi}"; record #${id} is verified`,
        );
      }
      case 'different-psdi': {
        const error = `the board carries PSDI "${finding.psdi}", not the reserved "${record.psdi}"`;
        // The reserved PSDI is not on its board, and no other board was ever given it.
        const next = reporter.record(
          await store.markFailed(id, { step: 'reconcile', error, psdiHeld: false }),
        );
        return outcome('failed', next, error);
      }
      case 'blank': {
        if (finding.devicePsdi !== undefined && finding.devicePsdi !== record.psdi) {
          const error = `the board reports PSDI "${finding.devicePsdi}", not the recorded "${record.psdi}"`;
          const next = reporter.record(
            await store.markFailed(id, { step: 'reconcile', error, psdiHeld: false }),
          );
          return outcome('failed', next, error);
        }
        const choice =
          typeof options.whenBlank === 'function'
            ? await options.whenBlank(finding)
            : options.whenBlank;
        if (choice === 'release' && profile.kind === 'mcumgr-settings' && finding.devicePsdi)
          // It survived a reset: the board's flash holds it, so giving it back would hand it twice.
          throw new Error(
            `board ${record.boardAddress} keeps PSDI "${finding.devicePsdi}" in its setting ${profile.keys.psdi} across a reset: finish it, or delete that setting on the board before releasing`,
          );
        if (choice === 'release') {
          const next = reporter.record(
            await store.release(id, 'released by reconcile: the board was found uncommitted'),
          );
          return outcome(
            'released',
            next,
            `the board was uncommitted; PSDI "${record.psdi}" is released`,
          );
        }
        try {
          const { record: done } = await resumeProvisioning(
            {
              central: options.central,
              store,
              profile,
              product: {
                id: record.productId,
                name: record.productName,
                serviceUuid: record.serviceUuid,
                psdiServiceUuid: record.psdiServiceUuid,
                psdiCharacteristicUuid: record.psdiCharacteristicUuid,
              },
              board: { id: finding.advertisement.id, address: record.boardAddress },
              timing: options.timing,
              onProgress: options.onProgress,
            },
            record,
          );
          return outcome(
            'finished',
            done,
            `provisioned again with PSDI "${record.psdi}" and verified`,
          );
        } catch (err) {
          if (!(err instanceof ProvisionError)) throw err;
          return outcome('failed', err.record ?? (await store.get(id)) ?? record, err.message);
        }
      }
    }
  };
  try {
    return await settle();
  } catch (err) {
    if (!(err instanceof InvalidTransitionError)) throw err;
    const now = await store.get(id);
    if (!now || needsReconciling(now)) throw err;
    return settledMeanwhile(now, finding);
  }
}

/**
 * Finds the board by address, advertising either the record's product service or the
 * profile's provisioning service, and reads what it carries.
 */
async function inspectBoard(
  central: BleCentral,
  record: ProvisioningRecord,
  profile: ProvisioningProfile,
  timingInput: TimingInput = {},
): Promise<BoardFinding> {
  const timing = resolveTiming(timingInput);
  const productService = normalizeUuid(record.serviceUuid);
  const ad = await findBoard(
    central,
    record.boardAddress,
    [productService, profile.service],
    timing.select.timeoutMs,
  );
  if (!ad) return { kind: 'not-found' };
  if (ad.serviceUuids.includes(productService)) return readProductMode(central, record, ad, timing);

  const connection: BleConnection = await withStepTimeout(
    central.connect(ad.id, { timeoutMs: timing.connect.timeoutMs }),
    'reconcile',
    timing.connect.timeoutMs,
  );
  let status: number;
  let devicePsdi: string | undefined;
  try {
    const read = (characteristic: string) =>
      withStepTimeout(
        connection.read(profile.service, characteristic),
        'reconcile',
        timing.read.timeoutMs,
      );
    status = (await read(profile.characteristics.status))[0] ?? STATUS.blank;
    if (profile.psdi.source === 'device')
      devicePsdi = new TextDecoder().decode(await read(profile.characteristics.psdi));
  } finally {
    await connection.disconnect().catch(() => undefined);
  }
  // Committed but not yet rebooted: wait for product mode and read that instead.
  if (status === STATUS.committed) return readProductMode(central, record, ad, timing);
  return { kind: 'blank', advertisement: ad, status, devicePsdi };
}

async function readProductMode(
  central: BleCentral,
  record: ProvisioningRecord,
  ad: Advertisement,
  timing: ReturnType<typeof resolveTiming>,
): Promise<BoardFinding> {
  let psdi: string;
  try {
    psdi = await readBackPsdi({
      central,
      board: { address: record.boardAddress },
      product: record,
      timeoutMs: timing.verify.timeoutMs,
      connectTimeoutMs: timing.connect.timeoutMs,
    });
  } catch (err) {
    throw new Error(
      `board ${record.boardAddress} is in product mode but its PSDI could not be read: ${errorMessage(err)}`,
      {
        cause: err,
      },
    );
  }
  return psdi === record.psdi
    ? { kind: 'carries-psdi', advertisement: ad, psdi }
    : { kind: 'different-psdi', advertisement: ad, psdi };
}
