// Putting right what a crash left unfinished, the same for every front end: which records need
// it (all of them, or the one the operator names), and each record's board looked at and the
// record settled with the profile it was provisioned with (docs/decisions/provisioning.md).
// The app settles one record at a time and refuses what it cannot do; `devicebench audit
// reconcile` goes through them all and reports each.
import type { AuditStore } from '../../audit/store';
import type { ProvisioningRecord } from '../../audit/records';
import type { AnyProvisioningProfile } from '../../ble/provisioning-profile';
import type { BleCentral } from '../../ble/port';
import { errorMessage } from '../../errors/message';
import {
  needsReconciling,
  reconcile,
  settledMeanwhile,
  type ReconcileOutcome,
} from '../../provisioning/reconcile';
import { NotConfiguredError, SetupError } from '../errors';
import { findProfile } from '../provisioning-setup';

type BlankChoice = 'finish' | 'release';

/** A named record that is settled already; the field is `recordId`. */
export class NothingToReconcileError extends SetupError {
  override name = 'NothingToReconcileError';
  constructor(readonly record: ProvisioningRecord) {
    super(
      'recordId',
      `record ${record.id} is ${record.state}${record.psdiHeld ? '' : ' and holds no PSDI'}: there is nothing to reconcile`,
    );
  }
}

/** The record `recordId`; else a SetupError naming `recordId`. */
async function storedRecord(store: AuditStore, recordId: number): Promise<ProvisioningRecord> {
  const record = await store.get(recordId);
  if (!record) throw new SetupError('recordId', `no record ${recordId}`);
  return record;
}

/** The record `recordId`, if it needs reconciling; else a SetupError naming `recordId`. */
async function recordToReconcile(store: AuditStore, recordId: number): Promise<ProvisioningRecord> {
  const record = await storedRecord(store, recordId);
  if (!needsReconciling(record)) throw new NothingToReconcileError(record);
  return record;
}

/**
 * Settles one record the operator picked from the unfinished ones: its board is looked for and
 * the record finished, verified or its PSDI released. One settled since the list showed it
 * (another station, a killed station's late commit) is said to be, not refused, as a sweep says
 * it (docs/decisions/provisioning.md, "Reconcile beside reconcile"). A board not found is a
 * NotConfiguredError saying where to look.
 */
export async function reconcileRecord(options: {
  /** Opened once the record is known to need it. */
  central: () => Promise<BleCentral>;
  store: AuditStore;
  profiles: AnyProvisioningProfile[];
  recordId: number;
  whenBlank: BlankChoice;
}): Promise<ReconcileOutcome> {
  const record = await storedRecord(options.store, options.recordId);
  if (!needsReconciling(record)) return settledMeanwhile(record);
  const outcome = await reconcile({
    central: await options.central(),
    store: options.store,
    profile: findProfile(options.profiles, record.profileId),
    record,
    whenBlank: options.whenBlank,
  });
  if (outcome.action === 'not-found') throw new NotConfiguredError(outcome.message);
  return outcome;
}

/** What became of one record of a sweep; `failed` when it could not be looked at. */
export interface SweepOutcome {
  recordId: number;
  action: ReconcileOutcome['action'];
  state: ProvisioningRecord['state'];
  message: string;
}

/**
 * The records a sweep goes through: every unfinished one, or only `recordId` (which must need
 * reconciling).
 */
export async function recordsToReconcile(
  store: AuditStore,
  recordId?: number,
): Promise<ProvisioningRecord[]> {
  return recordId === undefined
    ? store.listUnfinished()
    : [await recordToReconcile(store, recordId)];
}

/**
 * Settles each record in turn until `signal` stops it; a record whose profile is not known here,
 * or whose board could not be looked at, is reported and the sweep goes on.
 */
export async function reconcileEach(options: {
  central: BleCentral;
  store: AuditStore;
  profiles: AnyProvisioningProfile[];
  records: ProvisioningRecord[];
  whenBlank: BlankChoice;
  signal: AbortSignal;
}): Promise<SweepOutcome[]> {
  const outcomes: SweepOutcome[] = [];
  for (const record of options.records) {
    if (options.signal.aborted) break;
    const failed = (message: string) =>
      outcomes.push({ recordId: record.id, action: 'failed', state: record.state, message });
    const profile = options.profiles.find((p) => p.id === record.profileId);
    if (!profile) {
      failed(`profile ${record.profileId} is not known here`);
      continue;
    }
    try {
      const outcome = await reconcile({
        central: options.central,
        store: options.store,
        profile,
        record,
        whenBlank: options.whenBlank,
      });
      outcomes.push({
        recordId: record.id,
        action: outcome.action,
        state: outcome.record.state,
        message: outcome.message,
      });
    } catch (err) {
      failed(errorMessage(err));
    }
  }
  return outcomes;
}
