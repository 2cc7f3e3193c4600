// Scenarios: prove a scenario set on the board before uploading it. Pick the product and a
// board from the live scan, edit the set with the board's GATT table linting it, dry-run the
// saved set or the draft as the platform's client would, and read the timeline and the result
// events; every run stays in the audit log.
import { FaultsPanel } from '../../components/FaultsPanel';
import { useState } from 'react';
import type { ScannedDevice } from '../../../core/usecases/bench/bench-schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TrialProductsGate } from '../../components/TrialProductsGate';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useLoad } from '../../lib/use-load';
import { useSelectedProduct } from '../../lib/navigation';
import { scanRestartKey, useBleStatus } from '../../lib/use-ble-status';
import { useScan } from '../../lib/use-scan';
import {
  ScenarioSetEditor,
  type DraftState,
} from '../../components/scenario-set/ScenarioSetEditor';
import { PastRuns } from './PastRuns';
import { RunPanel, type LintBoard } from './RunPanel';
import { RunView } from './RunView';
import { useDryRun } from './use-dry-run';

export function Scenarios() {
  const api = useApi();
  const products = useLoad((api) => api.things.listTrialProducts({}), []);
  const [productId, setProductId] = useSelectedProduct();
  const ble = useBleStatus();
  const ready = ble.status?.adapterState === 'poweredOn';
  const scan = useScan(ready, scanRestartKey(ble.status));
  const [board, setBoard] = useState<ScannedDevice>();
  const [lintBoard, setLintBoard] = useState<LintBoard>();
  const [draft, setDraft] = useState<DraftState>();
  const readBoard = useAction();
  const dryRun = useDryRun();

  const chooseBoard = (device: ScannedDevice | undefined) => {
    setBoard(device);
    if (device?.id !== lintBoard?.deviceId) setLintBoard(undefined);
  };
  const lint = (device: ScannedDevice) =>
    void readBoard.run(async () => {
      const table = await api.scenarios.readBoard({ deviceId: device.id });
      setLintBoard({ ...table, name: device.localName ?? device.address });
    });

  return (
    <div className="page scenarios-page">
      <header className="page-header">
        <h1>Scenarios</h1>
        <p className="muted">
          Check a scenario set against the board and dry-run it as the platform&apos;s client would,
          before uploading it.
        </p>
      </header>
      <TrialProductsGate
        products={products}
        title="Product"
        testId="scenario-product"
        emptyTestId="scenario-no-products"
      >
        {(list) => {
          const product = list.find((p) => p.id === productId) ?? list[0];
          return (
            <>
              <RunPanel
                products={list}
                product={product}
                onSelectProduct={(id) => {
                  setProductId(id);
                  setDraft(undefined);
                }}
                ble={ble.status}
                scan={scan}
                board={board}
                onSelectBoard={chooseBoard}
                lintBoard={lintBoard}
                reading={readBoard.busy}
                onLint={lint}
                draft={draft}
                shown={dryRun.shown}
                onStarted={dryRun.follow}
                onFollow={dryRun.open}
              />
              <ErrorNotice error={readBoard.error} testId="read-board-error" />
              <ErrorNotice error={ble.error} />
              <ScenarioSetEditor
                key={product.id}
                product={product}
                board={lintBoard}
                onDraft={setDraft}
              />
              {dryRun.shown && <RunView shown={dryRun.shown} />}
              <PastRuns
                productId={product.id}
                refreshKey={`${dryRun.shown?.run.id}:${dryRun.shown?.run.status}`}
                // The opened run is drawn above the list: bring it into view, or nothing seems to
                // happen.
                onOpen={(id) =>
                  void dryRun
                    .open(id)
                    .then(() =>
                      requestAnimationFrame(() =>
                        document.getElementById('run-view')?.scrollIntoView({ block: 'start' }),
                      ),
                    )
                }
                openId={dryRun.shown?.run.id}
              />
            </>
          );
        }}
      </TrialProductsGate>
      <FaultsPanel />
    </div>
  );
}
