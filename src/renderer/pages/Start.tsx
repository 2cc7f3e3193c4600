// The page the app opens on: the bench workflow (product → provision → dry run → upload), each
// step with its state as the contract reports it and a link to the page that does it.
import { useContext, type MouseEvent } from 'react';
import type { DeviceBenchApi } from '../../core/app/api';
import { describeCount } from '../../core/audit/records';
import type { ScenarioSet } from '../../core/platform/things/schema';
import type { ScenarioRunSummary } from '../../core/scenario/schema';
import { ErrorNotice } from '../components/ErrorNotice';
import { isNotFound } from '../lib/errors';
import { formatTime } from '../lib/format';
import { RouteContext, useNavigate, useSelectedProduct } from '../lib/navigation';
import { routeHash } from '../lib/route';
import type { Resource } from '../lib/use-resource';
import { useLoad } from '../lib/use-load';

interface Step {
  id: string;
  title: string;
  what: string;
  page: string;
  link: string;
  /**
   * `text` is the state in a few words; `lines` one labelled fact each (a run of the saved set,
   * one of the draft); `detail` says which product, board or time.
   */
  state: Resource<{ text: string; lines?: RunLine[]; detail?: string; done: boolean }>;
}

/** One labelled dry run: which set, when, and how it ended; or why there is none. */
type RunLine = { label: string } & ({ run: ScenarioRunSummary } | { text: string });

/** A run's result in a word: never SUCCESS when any result failed or none came. */
function outcome(run: ScenarioRunSummary): string {
  if (run.status !== 'finished') return run.status;
  if (run.failures > 0) return `${run.failures} of ${run.results} failed`;
  return run.results > 0 ? 'SUCCESS' : 'no results';
}

async function savedSet(api: DeviceBenchApi, productId: string): Promise<ScenarioSet | null> {
  try {
    return await api.things.getScenarioSet({ productId });
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export function Start() {
  const products = useLoad(async (api) => {
    const list = await api.things.listTrialProducts({});
    const n = list.length;
    return {
      text: n === 0 ? 'No trial product yet' : `${n} trial product${n === 1 ? '' : 's'}`,
      done: n > 0,
    };
  }, []);
  const provisioned = useLoad(async (api) => {
    const { total, totalCapped } = await api.audit.search({ states: ['verified'], limit: 1 });
    return {
      text:
        total === 0
          ? 'No board verified yet'
          : `${describeCount(total, totalCapped)} board${total === 1 ? '' : 's'} verified`,
      done: total > 0,
    };
  }, []);
  const [selectedId] = useSelectedProduct();
  const dryRun = useLoad(
    async (api) => {
      // The chosen product's runs, or the newest run's product's: the saved set's last run and
      // the draft's last run are told apart, as they test different sets.
      const newestOf = async (productId?: string) =>
        (await api.scenarios.listRuns({ limit: 1, productId })).items[0];
      const newest = (selectedId && (await newestOf(selectedId))) || (await newestOf());
      if (!newest) return { text: 'No dry run yet', done: false };
      const { items } = await api.scenarios.listRuns({ productId: newest.productId, limit: 200 });
      const savedRun = items.find((r) => r.setSource === 'saved');
      const draftRun = items.find((r) => r.setSource === 'draft');
      const set = await savedSet(api, newest.productId);
      const lines: RunLine[] = [
        savedRun
          ? { label: `Saved set rev ${savedRun.revision}`, run: savedRun }
          : set
            ? { label: `Saved set rev ${set.revision}`, text: 'not dry-run yet' }
            : { label: 'Saved set', text: 'none saved yet' },
        ...(draftRun ? [{ label: 'Draft', run: draftRun }] : []),
      ];
      const current = savedRun !== undefined && set !== null && savedRun.revision === set.revision;
      return {
        text: `Dry runs of ${newest.productName}`,
        lines,
        detail:
          set && savedRun && !current
            ? `The saved set is now revision ${set.revision}: its dry run is still to do`
            : undefined,
        done: current && outcome(savedRun) === 'SUCCESS',
      };
    },
    [selectedId],
  );
  const uploaded = useLoad(async (api) => {
    const productList = await api.things.listTrialProducts({});
    // The platform keeps one set per product; the newest save is the one to show.
    const sets = await Promise.all(productList.map((p) => savedSet(api, p.id)));
    const newest = sets
      .filter((s): s is ScenarioSet => s !== null)
      .sort((a, b) => b.updatedAt - a.updatedAt)[0];
    if (!newest) return { text: 'No scenario set saved yet', done: false };
    const name = productList.find((p) => p.id === newest.productId)?.name ?? newest.productId;
    return { text: `Scenario set saved rev ${newest.revision}`, detail: name, done: true };
  }, []);

  const steps: Step[] = [
    {
      id: 'product',
      title: 'Product',
      what: 'Create a trial product on the platform: its service and PSDI UUIDs.',
      page: 'device-service',
      link: 'Open the device service console',
      state: products,
    },
    {
      id: 'provision',
      title: 'Provision',
      what: 'Write a PSDI to each board and verify it, one board or a batch.',
      page: 'provisioning',
      link: 'Open provisioning',
      state: provisioned,
    },
    {
      id: 'dry-run',
      title: 'Dry run',
      what: 'Run a scenario set against a board on the bench before the platform does.',
      page: 'scenarios',
      link: 'Open the scenario runner',
      state: dryRun,
    },
    {
      id: 'upload',
      title: 'Upload',
      what: 'Save the scenario set to the platform as the product’s next revision.',
      page: 'device-service',
      link: 'Open the scenario set editor',
      state: uploaded,
    },
  ];

  return (
    <div className="page start-page">
      <header className="page-header">
        <h1>Start</h1>
        <p className="muted">The bench workflow, and where each step stands.</p>
      </header>
      <ol className="workflow" data-testid="workflow">
        {steps.map((step, index) => (
          <WorkflowStep key={step.id} step={step} index={index + 1} />
        ))}
      </ol>
    </div>
  );
}

function WorkflowStep({ step, index }: { step: Step; index: number }) {
  const navigate = useNavigate();
  const { route } = useContext(RouteContext);
  const { value, error, reload } = step.state;
  function follow(event: MouseEvent) {
    event.preventDefault();
    navigate(step.page);
  }
  return (
    <li
      className={`workflow-step${value?.done ? ' done' : ''}`}
      data-testid="workflow-step"
      data-step={step.id}
    >
      <h2>
        <span className="workflow-index" aria-hidden="true">
          {index}
        </span>
        {step.title}
      </h2>
      <p className="muted">{step.what}</p>
      <p className="workflow-state" data-testid="workflow-state" aria-live="polite">
        {value ? value.text : error === undefined ? 'Loading…' : 'Could not be read'}
      </p>
      {value?.lines && (
        <ul className="workflow-runs">
          {value.lines.map((line) => (
            <li key={line.label} data-testid="workflow-run">
              <strong>{line.label}</strong>:{' '}
              {'run' in line ? (
                <>
                  <span className={outcome(line.run) === 'SUCCESS' ? 'good' : 'bad'}>
                    {outcome(line.run)}
                  </span>{' '}
                  <span className="muted">
                    run #{line.run.id} on {line.run.boardName}, {formatTime(line.run.startedAt)}
                  </span>
                </>
              ) : (
                <span className="muted">{line.text}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {value?.detail && <p className="workflow-detail">{value.detail}</p>}
      {error !== undefined && (
        <>
          <ErrorNotice error={error} />
          <button type="button" className="link" onClick={reload}>
            Try again
          </button>
        </>
      )}
      {/* A link, not a button: it goes somewhere, and the sidebar's buttons keep their names. */}
      <a href={routeHash({ ...route, page: step.page })} onClick={follow}>
        {step.link} →
      </a>
    </li>
  );
}
