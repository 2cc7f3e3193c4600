// Provisioning: turn blank prototypes into devices of a trial product. Unfinished records come
// first; then the product, profile and PSDI plan; then one board at a time or a whole batch.
import { FaultsPanel } from '../../components/FaultsPanel';
import { useCallback, useEffect } from 'react';
import type { TrialProduct } from '../../../core/platform/things/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TrialProductsGate } from '../../components/TrialProductsGate';
import type { Resource } from '../../lib/use-resource';
import { useLoad } from '../../lib/use-load';
import { useSelectedProduct } from '../../lib/navigation';
import { scanRestartKey, useBleStatus } from '../../lib/use-ble-status';
import { useScan } from '../../lib/use-scan';
import { useUuidChoices } from '../../lib/use-uuid-choices';
import { BatchProvision } from './BatchProvision';
import { PlanForm, type ProfileView } from './PlanForm';
import { SingleProvision } from './SingleProvision';
import { UnfinishedRecords } from './UnfinishedRecords';
import { usePlan } from './use-plan';
import {
  useProvisioningEvents,
  type BatchSummary,
  type ProvisioningEvents,
} from './use-provisioning-events';
import { LoadFailure } from '../../components/LoadFailure';

export function Provisioning() {
  const products = useLoad((api) => api.things.listTrialProducts({}), []);
  const profiles = useLoad((api) => api.provisioning.listProfiles({}), []);
  const unfinished = useLoad((api) => api.provisioning.listUnfinished({}), []);
  const [productId, setProductId] = useSelectedProduct();

  return (
    <div className="page prov-page">
      <header className="page-header">
        <h1>Provisioning</h1>
        <p className="muted">Write a trial product and its PSDI onto prototypes, then verify.</p>
      </header>
      <UnfinishedRecords unfinished={unfinished} />
      <TrialProductsGate
        products={products}
        title="Product and PSDI plan"
        testId="prov-plan"
        emptyTestId="prov-no-products"
      >
        {(list) => {
          const product = list.find((p) => p.id === productId) ?? list[0];
          return (
            <ProductBench
              key={product.id}
              products={list}
              product={product}
              onSelectProduct={setProductId}
              profiles={profiles}
              onRunEnded={unfinished.reload}
            />
          );
        }}
      </TrialProductsGate>
      {profiles.error !== undefined && (
        <LoadFailure error={profiles.error} onRetry={profiles.reload} />
      )}
      <FaultsPanel />
    </div>
  );
}

interface ProductBenchProps {
  products: TrialProduct[];
  product: TrialProduct;
  onSelectProduct: (productId: string) => void;
  profiles: Resource<ProfileView[]>;
  onRunEnded: () => void;
}

function ProductBench({
  products,
  product,
  onSelectProduct,
  profiles,
  onRunEnded,
}: ProductBenchProps) {
  // A profile where this tool makes the PSDI is what a new plan is for; others need no plan.
  const defaultProfile =
    profiles.value?.find((p) => p.psdiSource === 'tool') ?? profiles.value?.[0];
  const plan = usePlan(product.id, defaultProfile?.id ?? '');
  const ble = useBleStatus();
  const ready = ble.status?.adapterState === 'poweredOn';
  const scan = useScan(ready, scanRestartKey(ble.status));
  const uuidChoices = useUuidChoices();
  const events = useProvisioningEvents();
  const profile = profiles.value?.find((p) => p.id === plan.draft.profileId);
  // A batch is shown under its own product only; one running for another product still keeps
  // the radio busy, and is named so the operator can go to it.
  const summary = newestBatch(events, product.id);
  const elsewhere = [...events.summaries.values()].find(
    (b) => isActive(b) && b.productId !== product.id,
  );
  const batchActive = isActive(summary) || elsewhere !== undefined;

  const { refresh } = plan;
  const runEnded = useCallback(() => {
    refresh();
    onRunEnded();
  }, [refresh, onRunEnded]);
  useBatchEnd(summary, runEnded);

  return (
    <>
      <PlanForm
        products={products}
        product={product}
        onSelectProduct={onSelectProduct}
        profiles={profiles}
        plan={plan}
      />
      {ble.status && !ready && (
        <div className="warning-box" role="alert" data-testid="prov-adapter">
          The adapter is not ready ({ble.status.adapterState}).{' '}
          {ble.status.guidance ?? 'See the BLE bench page.'}
        </div>
      )}
      <ErrorNotice error={ble.error} />
      <BatchProvision
        product={product}
        plan={plan}
        summary={summary}
        boards={summary ? events.boards.get(summary.runId) : undefined}
        elsewhere={elsewhere}
        onOpenProduct={onSelectProduct}
        disabled={!ready || plan.loading || elsewhere !== undefined}
        onSummary={events.noteSummary}
      />
      <SingleProvision
        product={product}
        plan={plan}
        scan={scan}
        uuidChoices={uuidChoices}
        profileService={profile?.service}
        steps={events.steps}
        psdiSource={profile?.psdiSource}
        disabled={!ready || batchActive || plan.loading}
        onProvisioned={runEnded}
      />
    </>
  );
}

/** The product's newest batch, if it ran one this session. */
function newestBatch(events: ProvisioningEvents, productId: string): BatchSummary | undefined {
  let newest: BatchSummary | undefined;
  for (const summary of events.summaries.values())
    if (summary.productId === productId && (!newest || summary.startedAt >= newest.startedAt))
      newest = summary;
  return newest;
}

function isActive(summary: BatchSummary | undefined): boolean {
  return summary?.state === 'running' || summary?.state === 'stopping';
}

/** Calls `onEnd` once when the product's newest batch finishes or stops. */
function useBatchEnd(summary: BatchSummary | undefined, onEnd: () => void) {
  const ended = summary && (summary.state === 'finished' || summary.state === 'stopped');
  const endedRun = ended ? summary.runId : undefined;
  useEffect(() => {
    if (endedRun) onEnd();
  }, [endedRun, onEnd]);
}
