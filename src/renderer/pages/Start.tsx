// The page the app opens on: the bench workflow (product → provision → dry run → upload), each
// step with its state as the contract reports it and a link to the page that does it.
import { useContext, type MouseEvent, type ReactNode } from 'react';
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
import { unsavedDraft } from '../lib/unsaved-drafts';

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
  const list = useLoad((api) => api.things.listTrialProducts({}), []);
  const products: Step['state'] = {
    ...list,
    value: list.value && {
      text:
        list.value.length === 0
          ? 'No trial product yet'
          : `${list.value.length} trial product${list.value.length === 1 ? '' : 's'}`,
      done: list.value.length > 0,
    },
  };
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
  // One product at a time: the chosen one, else the first, as the pages that pick one do
  // (docs/decisions.md, "Start page per product").
  const [selectedId, selectProduct] = useSelectedProduct();
  const product = list.value?.find((p) => p.id === selectedId) ?? list.value?.[0];
  const productId = product?.id;
  const productName = product?.name ?? '';
  const draft = productId ? unsavedDraft(productId) : undefined;
  const hasDraft = draft !== undefined;
  const set = useLoad(async (api) => (productId ? savedSet(api, productId) : null), [productId]);
  const dryRun = useLoad(
    async (api) => {
      if (!productId) return { text: 'No dry run yet', done: false };
      // The saved set's last run and the draft's last run are told apart: they test different sets.
      const { items } = await api.scenarios.listRuns({ productId, limit: 200 });
      const savedRun = items.find((r) => r.setSource === 'saved');
      const draftRun = items.find((r) => r.setSource === 'draft');
      const saved = await savedSet(api, productId);
      const draftLabel = hasDraft ? 'Draft (unsaved)' : 'Draft';
      const lines: RunLine[] = [
        savedRun
          ? { label: `Saved set rev ${savedRun.revision}`, run: savedRun }
          : saved
            ? { label: `Saved set rev ${saved.revision}`, text: 'not dry-run yet' }
            : { label: 'Saved set', text: 'none saved yet' },
        ...(draftRun
          ? [{ label: draftLabel, run: draftRun }]
          : hasDraft
            ? [{ label: draftLabel, text: 'not dry-run yet' }]
            : []),
      ];
      const current =
        savedRun !== undefined && saved !== null && savedRun.revision === saved.revision;
      return {
        text: `Dry runs of ${productName}`,
        lines,
        detail:
          saved && savedRun && !current
            ? `The saved set is now revision ${saved.revision}: its dry run is still to do`
            : undefined,
        done: current && outcome(savedRun) === 'SUCCESS',
      };
    },
    [productId, productName, hasDraft],
  );
  const uploaded: Step['state'] = {
    ...set,
    value:
      list.value === undefined || set.value === undefined
        ? undefined
        : {
            text: set.value
              ? `Scenario set saved rev ${set.value.revision}`
              : 'No scenario set saved yet',
            lines: hasDraft
              ? [{ label: 'Draft (unsaved)', text: 'in the editor, not uploaded yet' }]
              : undefined,
            detail: set.value
              ? `${productName}, saved ${formatTime(set.value.updatedAt)}`
              : productName || undefined,
            done: set.value !== null,
          },
  };

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
      // Nothing to say before the products are known: which product's runs is not decided yet.
      state: list.value === undefined ? { ...dryRun, value: undefined } : dryRun,
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
      {provisioned.value && !provisioned.value.done && (
        <p className="start-newcomer" data-testid="start-newcomer">
          New here? The BLE bench has simulated boards, so every step below works without hardware:{' '}
          <PageLink page="ble-bench">open the BLE bench →</PageLink>
        </p>
      )}
      {list.value && list.value.length > 1 && product && (
        <div className="start-product field">
          <label htmlFor="start-product">Steps 3 and 4 for</label>
          <select
            id="start-product"
            data-testid="start-product"
            value={product.id}
            onChange={(event) => selectProduct(event.target.value)}
          >
            {list.value.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <ol className="workflow" data-testid="workflow">
        {steps.map((step, index) => (
          <WorkflowStep key={step.id} step={step} index={index + 1} />
        ))}
      </ol>
    </div>
  );
}

function WorkflowStep({ step, index }: { step: Step; index: number }) {
  const { value, error, reload } = step.state;
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
      <PageLink page={step.page}>{step.link} →</PageLink>
    </li>
  );
}

/** A link, not a button: it goes somewhere, and the sidebar's buttons keep their names. */
function PageLink({ page, children }: { page: string; children: ReactNode }) {
  const navigate = useNavigate();
  const { route } = useContext(RouteContext);
  function follow(event: MouseEvent) {
    event.preventDefault();
    navigate(page);
  }
  return (
    <a href={routeHash({ ...route, page })} onClick={follow}>
      {children}
    </a>
  );
}
