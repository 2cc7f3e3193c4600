// One board at a time: pick it from the live scan (blank boards of the chosen profile by
// default), provision it, and follow its steps as they happen.
import { useCallback, useState } from 'react';
import { AppError } from '../../../core/app/api';
import { FailureWords } from './FailureWords';
import type { AuditRecordView } from '../../../core/app/contracts/audit';
import type { ScannedDevice } from '../../../core/usecases/bench/bench-schema';
import type { TrialProduct } from '../../../core/platform/things/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TraceButton } from '../../components/TraceButton';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { ScanView, type UuidChoice } from '../../components/ScanView';
import type { Scan } from '../../lib/use-scan';
import { RecordHistory } from '../../components/RecordHistory';
import { RecordState } from '../../components/RecordState';
import { StepProgress } from './StepProgress';
import type { Plan } from './use-plan';
import type { Progress } from './use-provisioning-events';
import { PsdiCell } from '../../components/PsdiCell';

interface SingleProvisionProps {
  product: TrialProduct;
  plan: Plan;
  scan: Scan;
  uuidChoices: readonly UuidChoice[];
  /** Blank boards advertise the profile's service: the default filter. */
  profileService: string | undefined;
  steps: ReadonlyMap<string, readonly Progress[]>;
  /** Where the plan's profile takes the PSDI from: which steps a run has. */
  psdiSource: 'tool' | 'device' | undefined;
  disabled: boolean;
  onProvisioned: () => void;
}

interface Outcome {
  device: ScannedDevice;
  record?: AuditRecordView;
  error?: unknown;
  /** The whole attempt, scan result to verdict: the window of its HCI trace. */
  startedAt: number;
  endedAt: number;
}

export function SingleProvision({
  product,
  plan,
  scan,
  uuidChoices,
  profileService,
  steps,
  psdiSource,
  disabled,
  onProvisioned,
}: SingleProvisionProps) {
  const api = useApi();
  const provision = useAction<AuditRecordView>();
  const [current, setCurrent] = useState<ScannedDevice>();
  /** The board whose steps are shown: the one running, else the last one run. */
  const [shown, setShown] = useState<{ device: ScannedDevice; startedAt: number }>();
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const { ensureSaved } = plan;
  const { run } = provision;

  const start = useCallback(
    (device: ScannedDevice) => {
      setCurrent(device);
      void (async () => {
        if (!(await ensureSaved())) return setCurrent(undefined);
        const startedAt = Date.now();
        setShown({ device, startedAt });
        let outcome: Outcome = { device, startedAt, endedAt: startedAt };
        await run(async () => {
          try {
            const { record } = await api.provisioning.provisionOne({
              productId: product.id,
              deviceId: device.id,
            });
            outcome = { device, record, startedAt, endedAt: Date.now() };
            return record;
          } catch (error) {
            // The failure's record (if it got one) carries every try: show it with the error.
            const newest = await api.audit
              .search({ productId: product.id, boardAddress: device.address, limit: 1 })
              .then((page) => page.items[0])
              .catch(() => undefined);
            const record = newest && newest.createdAt >= startedAt - 1000 ? newest : undefined;
            outcome = { device, record, error, startedAt, endedAt: Date.now() };
            throw error;
          }
        });
        setOutcomes((prev) => [outcome, ...prev].slice(0, 100));
        setCurrent(undefined);
        onProvisioned();
      })();
    },
    [api, ensureSaved, onProvisioned, product.id, run],
  );

  const live = current ? (steps.get(current.id) ?? []) : [];
  const last = live.at(-1);
  // Events of the shown run only: the same board may have been provisioned before.
  const shownSteps = shown
    ? (steps.get(shown.device.id) ?? []).filter((e) => e.at >= shown.startedAt - 1000)
    : [];
  const shownOutcome =
    shown && outcomes[0]?.startedAt === shown.startedAt ? outcomes[0] : undefined;

  // The run's steps and its result go under the row that was clicked, so they are where the
  // click was; the panel below keeps every board done one at a time this session.
  const detail = shown && {
    id: shown.device.id,
    revision: `${shown.startedAt}:${shownSteps.length}:${shownOutcome ? 'done' : 'running'}`,
    content: (
      <div className="prov-row-detail" aria-live="polite" data-testid="single-progress">
        {current?.id === shown.device.id && (
          <p>
            Provisioning <strong>{current.localName ?? current.address}</strong>
            {last && (
              <>
                : {last.step} {last.phase}
                {last.attempt && last.attempt > 1 ? ` (attempt ${last.attempt})` : ''}
                {last.psdi && (
                  <>
                    {' '}
                    · PSDI <code>{last.psdi}</code>
                  </>
                )}
              </>
            )}
            …
          </p>
        )}
        <StepProgress events={shownSteps} psdiSource={psdiSource} />
        {shownOutcome && (
          <p className="prov-row-result" data-testid="single-row-result">
            {shownOutcome.record ? (
              <RecordState record={shownOutcome.record} />
            ) : (
              <span className="badge bad">error</span>
            )}
            {shownOutcome.record?.psdi && (
              <>
                {' '}
                PSDI <code>{shownOutcome.record.psdi}</code>
              </>
            )}{' '}
            <OutcomeDetail outcome={shownOutcome} />
          </p>
        )}
      </div>
    ),
  };

  // The list comes first: what a run adds below it (a result row) never moves the boards under
  // the pointer.
  return (
    <>
      <ScanView
        key={profileService ?? ''}
        title="Boards to provision"
        testId="prov-scan"
        scan={scan}
        uuidChoices={uuidChoices}
        defaultServiceUuid={profileService}
        action={{
          label: 'Provision',
          run: start,
          busyId: current?.id,
          disabled: disabled || current !== undefined,
          detail,
        }}
      />
      <Panel title="Single board" testId="prov-single">
        {!shown && <p className="note">Choose “Provision” on a board in the list above.</p>}
        {/* A run's failure is said in its result row below, not again above it. */}
        {outcomes.length === 0 && <ErrorNotice error={provision.error} testId="provision-error" />}
        {outcomes.length > 0 && (
          <table className="grid" aria-label="Boards provisioned one at a time">
            <TableHead columns={['Board', 'PSDI', 'Result', 'Detail', 'Trace']} />
            <tbody>
              {outcomes.map((o, i) => (
                <tr key={i} data-testid="single-result">
                  <td>
                    <strong>{o.device.localName ?? ''}</strong>{' '}
                    <span className="mono muted">{o.device.address}</span>
                  </td>
                  <PsdiCell psdi={o.record?.psdi} />
                  <td>
                    {o.record ? (
                      <RecordState record={o.record} />
                    ) : (
                      <span className="badge bad">error</span>
                    )}
                  </td>
                  <td>
                    <OutcomeDetail outcome={o} />
                    {o.record && <RecordHistory history={o.record.history} errorShown />}
                  </td>
                  <td>
                    <TraceButton
                      span={() => ({ from: o.startedAt, to: o.endedAt })}
                      label={o.record ? `provisioning-${o.record.id}` : 'provisioning'}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </>
  );
}

/** Why a run ended as it did: the call's error, else the record's failed step and error. */
function OutcomeDetail({ outcome }: { outcome: Outcome }) {
  if (outcome.error instanceof Error)
    return (
      <FailureWords
        message={outcome.error.message}
        details={outcome.error instanceof AppError ? outcome.error.details : undefined}
      />
    );
  return (
    <>
      {outcome.record?.failedStep && <>step {outcome.record.failedStep}: </>}
      {outcome.record?.error ?? ''}
    </>
  );
}
