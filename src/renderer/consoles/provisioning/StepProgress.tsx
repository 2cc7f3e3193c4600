// One board's provisioning steps as they happen: each step pending, running (with its attempt),
// done, retrying (with what failed) or failed, in the order the tool runs them.
import type { ProvisioningStep } from '../../../core/audit/records';
import type { Progress } from './use-provisioning-events';

/**
 * A run's steps in the order it takes them: the board is connected and checked against the
 * profile before a PSDI is reserved (docs/provisioning-protocol.md, "The tool's steps").
 */
const RUN_ORDER: readonly ProvisioningStep[] = [
  'select',
  'connect',
  'discover',
  'pair',
  'reserve',
  'read-psdi',
  'write',
  'commit',
  'verify',
];

/**
 * The steps a run of this PSDI source goes through; `pair` only once the run pairs (its profile
 * or its board asks for a level).
 */
function stepsFor(
  psdiSource: 'tool' | 'device' | undefined,
  events: readonly Progress[],
): ProvisioningStep[] {
  return RUN_ORDER.filter(
    (s) =>
      (s !== 'pair' || events.some((e) => e.step === 'pair')) &&
      (psdiSource === 'device'
        ? s !== 'reserve'
        : psdiSource === 'tool'
          ? s !== 'read-psdi'
          : true),
  );
}

type StepState = 'pending' | 'running' | 'done' | 'retrying' | 'failed';

const TONES: Record<StepState, string> = {
  pending: '',
  running: 'warn',
  done: 'good',
  retrying: 'warn',
  failed: 'bad',
};

interface StepView {
  step: ProvisioningStep;
  state: StepState;
  attempt: number;
  message?: string;
}

function viewOf(step: ProvisioningStep, events: readonly Progress[]): StepView {
  const own = events.filter((e) => e.step === step);
  const last = own.at(-1);
  const attempt = Math.max(0, ...own.map((e) => e.attempt ?? 1));
  if (!last) return { step, state: 'pending', attempt };
  const state: StepState =
    last.phase === 'started'
      ? 'running'
      : last.phase === 'finished'
        ? 'done'
        : last.phase === 'retrying'
          ? 'retrying'
          : 'failed';
  const failedBefore = own.filter((e) => e.phase === 'retrying').at(-1);
  return {
    step,
    state,
    attempt,
    // A step that ended the run is said in the run's result, once; the step shows its state.
    message:
      state === 'done' || state === 'running'
        ? failedBefore?.message
        : state === 'failed'
          ? undefined
          : last.message,
  };
}

export function StepProgress({
  events,
  psdiSource,
}: {
  events: readonly Progress[];
  psdiSource: 'tool' | 'device' | undefined;
}) {
  const views = stepsFor(psdiSource, events).map((step) => viewOf(step, events));
  return (
    <ol className="prov-steps" aria-label="Provisioning steps" data-testid="single-steps">
      {views.map((v) => (
        <li key={v.step} data-step={v.step} data-state={v.state}>
          <span className={`badge ${TONES[v.state]}`}>{v.step}</span>{' '}
          <span className="muted">
            {v.state === 'pending' ? '' : v.state}
            {v.attempt > 1 ? ` · attempt ${v.attempt}` : ''}
          </span>
          {v.message && (
            <span className="prov-step-message" title={v.message}>
              {v.state === 'done' || v.state === 'running' ? 'after: ' : ''}
              {v.message}
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}
