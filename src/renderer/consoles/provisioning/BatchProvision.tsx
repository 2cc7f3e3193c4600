// A tray at a time: every matching board in range, several at once, with a progress bar,
// each board's step as it happens and the run's summary; with an image, each board is flashed
// over MCUmgr before it is provisioned. Stopping lets boards already being written finish
// their step, so none is left half-written.
import { useState, type FormEvent } from 'react';
import type { TrialProduct } from '../../../core/platform/things/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TraceButton } from '../../components/TraceButton';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { AppError } from '../../../core/app/api';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import type { Plan } from './use-plan';
import type { BatchSummary, Progress } from './use-provisioning-events';
import { FailureWords } from './FailureWords';
import { useFirstRows } from '../../components/FirstRows';
import { Checkbox } from '../../components/Checkbox';
import { ImageFileChooser } from '../../components/ImageFileChooser';
import type { ChosenImage } from '../../lib/image-file';
import { PsdiCell } from '../../components/PsdiCell';

interface BatchProvisionProps {
  product: TrialProduct;
  plan: Plan;
  summary: BatchSummary | undefined;
  boards: ReadonlyMap<string, Progress> | undefined;
  /** A batch of another product still running: named, with a way to go to it. */
  elsewhere: BatchSummary | undefined;
  onOpenProduct: (productId: string) => void;
  disabled: boolean;
  onSummary: (summary: BatchSummary) => void;
}

function optionalInt(text: string, field: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text.trim());
  if (!Number.isInteger(value))
    throw new AppError({
      code: 'invalid_input',
      message: `${field} must be a whole number`,
      fields: [{ field, message: 'must be a whole number' }],
    });
  return value;
}

export function BatchProvision({
  product,
  plan,
  summary,
  boards,
  elsewhere,
  onOpenProduct,
  disabled,
  onSummary,
}: BatchProvisionProps) {
  const api = useApi();
  const start = useAction<BatchSummary>();
  const stop = useAction<BatchSummary>();
  const fields = useFields({ concurrency: '4', name: '', minRssi: '', limit: '' }, start.error);
  const active = summary && (summary.state === 'running' || summary.state === 'stopping');
  const [onlyMatching, setOnlyMatching] = useState(false);
  const [image, setImage] = useState<ChosenImage>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!(await plan.ensureSaved())) return;
    await start.run(async () => {
      const { values } = fields;
      const answer = await api.provisioning.startBatch({
        productId: product.id,
        concurrency: optionalInt(values.concurrency, 'concurrency') ?? 4,
        name: values.name.trim() || undefined,
        minRssi: optionalInt(values.minRssi, 'minRssi'),
        limit: optionalInt(values.limit, 'limit'),
        onlyMatching,
        image: image?.base64,
      });
      onSummary(answer);
      return answer;
    });
  }

  const done = summary ? summary.succeeded + summary.failed : 0;
  /** A running or stopped batch is read against what it took on; a finished one is whole. */
  const counted = active || summary?.state === 'stopped';
  const rows = boards ? [...boards.values()] : [];
  const { shown, more } = useFirstRows(rows);

  return (
    <Panel title="Batch" testId="prov-batch">
      <form className="inline-form" onSubmit={submit} aria-label="Start a batch">
        <TextField
          label="Boards at once"
          className="number"
          inputMode="numeric"
          {...fields.bind('concurrency')}
        />
        <TextField
          label="Name contains"
          {...fields.bind('name')}
          maxLength={64}
          hint="Only boards whose name contains this"
        />
        <TextField
          label="Minimum RSSI (dBm)"
          className="number"
          placeholder="e.g. -70"
          {...fields.bind('minRssi')}
          hint="Skip boards further away"
        />
        <TextField
          label="At most (boards)"
          className="number"
          inputMode="numeric"
          placeholder="all in range"
          {...fields.bind('limit')}
        />
        <Checkbox
          label="Only boards that match the profile"
          checked={onlyMatching}
          onChange={setOnlyMatching}
        />
        <div className="batch-image" role="group" aria-label="Image to flash first">
          <ImageFileChooser
            inputLabel="Batch image file"
            buttonLabel="Flash an MCUboot image first…"
            chosen={image}
            onChosen={setImage}
            disabled={start.busy || active}
            clearable
          />
        </div>
        <button type="submit" className="primary" disabled={disabled || start.busy || active}>
          {start.busy ? 'Starting…' : 'Start batch'}
        </button>
        {active && summary && (
          <button
            type="button"
            className="danger"
            disabled={stop.busy || summary.state === 'stopping'}
            onClick={() =>
              void stop.run(async () => {
                const answer = await api.provisioning.stopBatch({ runId: summary.runId });
                onSummary(answer);
                return answer;
              })
            }
          >
            {summary.state === 'stopping' ? 'Stopping…' : 'Stop batch'}
          </button>
        )}
        <ErrorNotice error={start.error} shownFields={fields.names} testId="batch-error" />
        <ErrorNotice error={stop.error} />
      </form>
      {elsewhere && (
        <p className="note" data-testid="batch-elsewhere">
          A batch of <strong>{elsewhere.productName}</strong> is{' '}
          {elsewhere.state === 'stopping' ? 'stopping' : 'running'}: the radio is busy until it
          ends.{' '}
          <button type="button" className="link" onClick={() => onOpenProduct(elsewhere.productId)}>
            Show {elsewhere.productName}
          </button>
        </p>
      )}
      {summary && (
        <div className="prov-summary" data-testid="batch-summary">
          <p className="prov-summary-product" data-testid="batch-product">
            Batch of <strong>{summary.productName}</strong>
          </p>
          <progress
            aria-label="Batch progress"
            max={counted ? Math.max(summary.total, done, 1) : Math.max(done, 1)}
            value={done}
          />
          <p aria-live="polite" role="status">
            {summary.state === 'stopped' ? (
              <>
                {done} of {summary.total} — stopped:{' '}
              </>
            ) : (
              <>
                {SUMMARY_STATE[summary.state]}:{' '}
                {/* Once a run has finished its boards are those it did, whatever it expected. */}
                {active ? `${done} of ${summary.total}` : done} board
                {done === 1 && !active ? '' : 's'} done —{' '}
              </>
            )}
            <span className="good">{summary.succeeded} verified</span>,{' '}
            <span className={summary.failed ? 'bad' : ''}>{summary.failed} failed</span>,{' '}
            {summary.inFlight} in progress
            {summary.skipped > 0 && (
              <span data-testid="batch-skipped">
                ; {summary.skipped} of another profile skipped, no PSDI reserved
              </span>
            )}
            {summary.state === 'stopping' &&
              '. Boards being written finish their step; no new board starts.'}
          </p>
          {summary.storeError && (
            <p className="warning-box" role="alert" data-testid="batch-store-error">
              Holding: {summary.storeError}. No new board starts and nothing is written without a
              committed reservation; the batch resumes by itself when the audit log answers.
            </p>
          )}
        </div>
      )}
      {summary && (
        <TraceButton
          span={() => ({ from: summary.startedAt, to: summary.finishedAt ?? Date.now() })}
          label="provisioning-batch"
        />
      )}
      {rows.length > 0 && (
        <div className="table-scroll">
          <table className="grid" aria-label="Boards in this batch">
            <TableHead columns={['Board', 'Step', 'PSDI', 'Detail']} />
            <tbody>
              {shown.map((p) => (
                <tr key={p.deviceId} data-testid="batch-board">
                  <td data-testid="batch-board-name">
                    {p.name && <strong>{p.name}</strong>}{' '}
                    <span className="mono muted">{p.address ?? p.deviceId}</span>
                  </td>
                  <td>
                    <span
                      className={`badge ${p.phase === 'done' ? 'good' : p.phase === 'failed' ? 'bad' : p.phase === 'retrying' || p.phase === 'skipped' ? 'warn' : ''}`}
                    >
                      {p.phase === 'done'
                        ? 'verified'
                        : p.phase === 'skipped'
                          ? 'skipped'
                          : `${p.step} ${p.phase}`}
                    </span>
                  </td>
                  <PsdiCell psdi={p.psdi} />
                  <td data-testid="batch-board-detail">
                    <FailureWords message={p.message ?? ''} details={p.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more}
    </Panel>
  );
}

const SUMMARY_STATE: Record<Exclude<BatchSummary['state'], 'stopped'>, string> = {
  running: 'Running',
  stopping: 'Stopping',
  finished: 'Finished',
};
