// The dry run's controls: product, board (from the live scan; its GATT table lints the set),
// which set (the saved one or the editor's draft), how long, where the results go; start, stop.
// A length the set can never reach is said before start, with a duration offered instead (asked
// in a dialog before it starts). When a run ends, how it ended is said here, above Start. The saved
// set is read from the platform here too, so a set saved elsewhere (the CLI, another station) is
// offered even before the editor below has loaded it.
import { useState } from 'react';
import { rssiText } from '../../../core/ble/rssi';
import type { BleStatus, ScannedDevice } from '../../../core/usecases/bench/bench-schema';
import type { Delivery } from '../../../core/app/contracts/scenarios';
import type { TrialProduct } from '../../../core/platform/things/schema';
import { checkFeasibility } from '../../../core/scenario/feasibility';
import type { BoardGatt } from '../../../core/scenario/board-lint';
import { useBenchLinks } from './use-bench-links';
import type { RunnableSet, ScenarioRunSummary } from '../../../core/scenario/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { articleFor } from '../../lib/format';
import { useAction } from '../../lib/use-action';
import { isNotFound } from '../../lib/errors';
import { AppError } from '../../../core/app/api';
import { runFromDetail } from '../../../core/usecases/dry-runs/dry-run-busy';
import { useLoad } from '../../lib/use-load';
import type { Scan } from '../../lib/use-scan';
import type { DraftState } from '../../components/scenario-set/ScenarioSetEditor';
import { RunOutcome } from './RunOutcome';
import type { ShownRun } from './use-dry-run';

/** The board whose GATT table lints the set, named as the scan shows it. */
export type LintBoard = BoardGatt & { name: string; deviceId: string };

type Length = 'stopped' | 'cycles' | 'seconds';

/** The duration offered when a count of connections cannot be reached. */
const OFFERED_SECONDS = '30';

interface RunPanelProps {
  products: TrialProduct[];
  product: TrialProduct;
  onSelectProduct: (productId: string) => void;
  ble: BleStatus | undefined;
  scan: Scan;
  board: ScannedDevice | undefined;
  onSelectBoard: (board: ScannedDevice | undefined) => void;
  lintBoard: LintBoard | undefined;
  reading: boolean;
  onLint: (board: ScannedDevice) => void;
  draft: DraftState | undefined;
  shown: ShownRun | undefined;
  onStarted: (run: ScenarioRunSummary, set: RunnableSet) => void;
  /** Shows a run that is already running (another window's, on the chosen board). */
  onFollow: (runId: number) => Promise<void>;
}

/** The run holding the board, when Start was refused for it (dry-run-busy.ts). */
function holdingRun(error: unknown): number | undefined {
  if (!(error instanceof AppError)) return undefined;
  return error.fields
    .filter((f) => f.field === 'deviceId')
    .map((f) => runFromDetail(f.message))
    .find((id) => id !== undefined);
}

/**
 * Which set Start runs: the one asked for, else the one there is. A saved set asked for and not
 * read yet runs nothing, never the draft in its place; one there is none of gives way to the draft.
 */
function chosenSet(
  source: 'saved' | 'draft',
  saved: 'read' | 'reading' | 'none',
  hasDraft: boolean,
): 'saved' | 'draft' | undefined {
  if (source === 'saved')
    return saved === 'read' ? 'saved' : saved === 'none' && hasDraft ? 'draft' : undefined;
  return hasDraft ? 'draft' : saved === 'read' ? 'saved' : undefined;
}

export function RunPanel(props: RunPanelProps) {
  const { products, product, ble, scan, board, shown } = props;
  // Only this product's editor speaks for it: just after a change of product (a page change, a
  // reload) the last product's draft is still reported, and its saved set is not this one's.
  const draft = props.draft?.productId === product.id ? props.draft : undefined;
  const api = useApi();
  const start = useAction();
  const stop = useAction();
  const [source, setSource] = useState<'saved' | 'draft'>('draft');
  const [length, setLength] = useState<Length>('cycles');
  const [amount, setAmount] = useState('3');
  const [deliveryMode, setDeliveryMode] = useState<Delivery['mode']>('app');
  const [offered, setOffered] = useState(OFFERED_SECONDS);
  const [url, setUrl] = useState('');
  const [pairAsPhone, setPairAsPhone] = useState(false);
  const [confirmingOffer, setConfirmingOffer] = useState(false);
  const platformSet = useLoad(
    async (api) => {
      try {
        return await api.things.getScenarioSet({ productId: product.id });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    [product.id],
  );
  // The editor's copy once it has one (it knows of a save or delete made here first); until then
  // the platform's answer for this product, never the last product's still shown while reading.
  const saved = draft ? draft.saved : platformSet.loading ? undefined : platformSet.value;

  const boards = [...scan.entries.values()]
    .map((e) => e.device)
    .sort((a, b) => (a.localName ?? a.address).localeCompare(b.localName ?? b.address));
  // Boards the BLE bench holds a link to, not advertising: named under the picker, not missing.
  const heldElsewhere = useBenchLinks().filter((l) => !boards.some((b) => b.id === l.deviceId));
  const ready = ble?.adapterState === 'poweredOn';
  const running = shown?.run.status === 'running' ? shown.run : undefined;
  const draftInput = draft?.validation.input;
  const chosen = chosenSet(
    source,
    saved === null ? 'none' : saved ? 'read' : 'reading',
    Boolean(draftInput),
  );
  const n = Number(amount);
  const runSet = chosen === 'saved' ? saved : chosen === 'draft' ? draftInput : undefined;
  const impossible = runSet
    ? checkFeasibility({
        set: runSet,
        cycles: length === 'cycles' ? n : undefined,
        board: props.lintBoard?.deviceId === board?.id ? props.lintBoard : undefined,
      })
    : [];

  const run = (length: Length, n: number) =>
    void start.run(async () => {
      if (!board || !chosen) return;
      try {
        const { run: started, set } = await api.scenarios.start({
          productId: product.id,
          deviceId: board.id,
          boardName: board.localName ?? board.address,
          set:
            chosen === 'saved' || !draftInput
              ? { source: 'saved' }
              : { source: 'draft', draft: draftInput },
          cycles: length === 'cycles' ? n : undefined,
          durationMs: length === 'seconds' ? Math.round(n * 1000) : undefined,
          delivery: deliveryMode === 'webhook' ? { mode: 'webhook', url } : { mode: deliveryMode },
          pairAsPhone: pairAsPhone || undefined,
        });
        props.onStarted(started, set);
      } catch (err) {
        // Another window's run holds the board: follow it here, its timeline and its Stop, so
        // the panel is free again when it ends, rather than a refusal naming a Stop not here.
        const holding = holdingRun(err);
        if (holding === undefined) throw err;
        await props.onFollow(holding);
      }
    });

  return (
    <Panel title="Dry run" testId="run-panel">
      {ble && !ready && (
        <div className="warning-box" role="alert">
          The adapter is not ready ({ble.adapterState}). {ble.guidance ?? 'See the BLE bench page.'}
        </div>
      )}
      <div className="form-grid run-form">
        <label>
          Product
          <select value={product.id} onChange={(e) => props.onSelectProduct(e.target.value)}>
            {products.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Board ({ble ? ble.adapters.map((a) => a.spec).join(', ') : 'adapters starting'})
          <select
            value={board?.id ?? ''}
            data-testid="run-board"
            onChange={(e) => props.onSelectBoard(boards.find((b) => b.id === e.target.value))}
          >
            <option value="">{boards.length ? 'Choose a board…' : 'Scanning…'}</option>
            {boards.map((b) => (
              <option key={b.id} value={b.id}>
                {b.localName ?? '(no name)'} · {b.address} · {rssiText(b.rssi)}
              </option>
            ))}
          </select>
        </label>
        {heldElsewhere.length > 0 && (
          <p className="note" data-testid="run-board-held">
            Not listed: {heldElsewhere.map((l) => l.name ?? l.address).join(', ')}, connected on the
            BLE bench (a connected board does not advertise). Disconnect{' '}
            {heldElsewhere.length === 1 ? 'it' : 'them'} there to run against{' '}
            {heldElsewhere.length === 1 ? 'it' : 'them'}.
          </p>
        )}
        <div className="button-row">
          <button
            type="button"
            disabled={!board || props.reading || Boolean(running)}
            onClick={() => board && props.onLint(board)}
          >
            {props.reading ? 'Reading GATT table…' : 'Check the set against this board'}
          </button>
          {props.lintBoard && (
            <span className="muted" data-testid="lint-status">
              GATT table of {props.lintBoard.name}: {props.lintBoard.services.length} services
            </span>
          )}
        </div>

        <fieldset className="radio-row">
          <legend>Scenario set</legend>
          <label>
            <input
              type="radio"
              name="run-source"
              checked={chosen === 'draft'}
              disabled={!draftInput}
              onChange={() => setSource('draft')}
            />
            Editor draft{draft?.dirty ? ' (unsaved changes)' : ''}
            {draft && !draftInput && ' — fix its problems first'}
          </label>
          <label>
            <input
              type="radio"
              name="run-source"
              checked={chosen === 'saved'}
              disabled={!saved}
              onChange={() => setSource('saved')}
            />
            Saved set
            {saved
              ? ` (revision ${saved.revision})`
              : saved === undefined
                ? ' (reading…)'
                : ' (none yet)'}
          </label>
        </fieldset>

        <label>
          Run
          <span className="inline">
            <select
              value={length}
              aria-label="Run length"
              onChange={(e) => setLength(e.target.value as Length)}
            >
              <option value="cycles">for a number of connections</option>
              <option value="seconds">for a number of seconds</option>
              <option value="stopped">until stopped</option>
            </select>
            {length !== 'stopped' && (
              <input
                className="number"
                aria-label={length === 'cycles' ? 'Connections' : 'Seconds'}
                inputMode="numeric"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
              />
            )}
          </span>
        </label>
        <label>
          Result events
          <span className="inline">
            <select
              value={deliveryMode}
              aria-label="Where result events go"
              onChange={(e) => setDeliveryMode(e.target.value as Delivery['mode'])}
            >
              <option value="app">kept here (shown, counted, exported)</option>
              <option value="webhook">to a bot&apos;s webhook URL (signed)</option>
              <option value="emulator">
                to the emulator channel&apos;s webhook URL (fails if it has none)
              </option>
            </select>
            {deliveryMode === 'webhook' && (
              <input
                className="mono grow"
                aria-label="Bot webhook URL"
                placeholder="https://bot.example/webhook"
                value={url}
                onChange={(e) => setUrl(e.target.value)}
              />
            )}
          </span>
        </label>
        <div className="field checkbox">
          <input
            id="run-pair-as-phone"
            type="checkbox"
            checked={pairAsPhone}
            onChange={(e) => setPairAsPhone(e.target.checked)}
          />
          <label htmlFor="run-pair-as-phone">
            {/* Not "Secure Connections" in full: the run length's "Connections" is its own label. */}
            Pair as a phone does (LESC, bonding, MITM: the board&apos;s passkey or number is asked
            here)
          </label>
        </div>
      </div>
      {impossible.length > 0 && (
        <div className="warning-box" role="alert" data-testid="run-infeasible">
          <p>
            This run would never end as asked:{' '}
            {impossible.map((f) => (
              <span key={f.rule} data-rule={f.rule}>
                {f.message}.{' '}
              </span>
            ))}
          </p>
          <span className="inline">
            <button
              type="button"
              disabled={!ready || !board || start.busy || !(Number(offered) >= 0.1)}
              onClick={() => setConfirmingOffer(true)}
            >
              Run for {offered} s instead
            </button>
            <input
              className="number"
              aria-label="Seconds to run instead"
              inputMode="numeric"
              value={offered}
              onChange={(e) => setOffered(e.target.value)}
            />
          </span>
        </div>
      )}
      {shown && !running && shown.run.productId === product.id && <RunOutcome shown={shown} />}
      <div className="button-row">
        {running ? (
          <button
            type="button"
            className="danger"
            disabled={stop.busy}
            onClick={() => void stop.run(() => api.scenarios.stop({ runId: running.id }))}
          >
            {stop.busy ? 'Stopping…' : 'Stop'}
          </button>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={!ready || !board || !chosen || start.busy || impossible.length > 0}
            title={
              !board
                ? 'Choose a board first'
                : !chosen
                  ? source === 'saved' && saved === undefined
                    ? 'Reading the saved set…'
                    : 'No set to run'
                  : impossible.length
                    ? 'This run would never end: see above'
                    : undefined
            }
            onClick={() => run(length, n)}
          >
            {start.busy ? 'Starting…' : 'Start dry run'}
          </button>
        )}
        {running && (
          <span className="badge warn" role="status" data-testid="run-status">
            running on {running.boardName}
          </span>
        )}
      </div>
      <ErrorNotice error={start.error} testId="start-error" />
      <ErrorNotice error={stop.error} />
      <ErrorNotice error={platformSet.error} />
      {confirmingOffer && (
        <ConfirmDialog
          title={`Run for ${offered} s instead?`}
          confirmLabel={`Start ${articleFor(offered)} ${offered} s dry run`}
          tone="primary"
          onCancel={() => setConfirmingOffer(false)}
          onConfirm={async () => {
            setLength('seconds');
            setAmount(offered);
            setConfirmingOffer(false);
            run('seconds', Number(offered));
          }}
        >
          <p>
            The {chosen === 'saved' ? `saved set (revision ${saved?.revision})` : 'editor draft'}{' '}
            runs on <strong>{board?.localName ?? board?.address}</strong> for {offered} seconds,
            then stops, however many connections it made.
          </p>
        </ConfirmDialog>
      )}
    </Panel>
  );
}
