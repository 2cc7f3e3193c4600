// Scenarios: prove a scenario set on the board before uploading it. Pick the product and a
// board from the live scan, edit the set with the board's GATT table linting it, dry-run the
// saved set or the draft as the platform's client would, and read the timeline and the result
// events; every run stays in the audit log.
import { useCallback, useState } from 'react';
import type { ScannedDevice } from '../../core/app/contracts/ble';
import type { BoardGatt } from '../../core/scenario/board-lint';
import { ErrorNotice } from '../components/ErrorNotice';
import { LoadFailure } from '../components/LoadFailure';
import { Panel } from '../components/Panel';
import { useApi } from '../lib/api-context';
import { useNavigate } from '../lib/navigation';
import { useAction } from '../lib/use-action';
import { useResource } from '../lib/use-resource';
import { scanRestartKey, useBleStatus } from './ble-bench/use-ble-status';
import { useScan } from './ble-bench/use-scan';
import { ScenarioSetEditor, type DraftState } from './device-service/ScenarioSetEditor';
import { PastRuns } from './scenarios/PastRuns';
import { RunPanel } from './scenarios/RunPanel';
import { RunView } from './scenarios/RunView';
import { useDryRun } from './scenarios/use-dry-run';

export type LintBoard = BoardGatt & { name: string; deviceId: string };

export function Scenarios() {
  const api = useApi();
  const navigate = useNavigate();
  const products = useResource(useCallback(() => api.things.listTrialProducts({}), [api]));
  const [productId, setProductId] = useState<string>();
  const product = products.value?.find((p) => p.id === productId) ?? products.value?.[0];
  const ble = useBleStatus();
  const ready = ble.status?.adapterState === 'poweredOn';
  const scan = useScan(ready, scanRestartKey(ble.status));
  const [board, setBoard] = useState<ScannedDevice>();
  const [lintBoard, setLintBoard] = useState<LintBoard>();
  const [draft, setDraft] = useState<DraftState>();
  const readBoard = useAction();
  const dryRun = useDryRun();
  const [runsVersion, setRunsVersion] = useState(0);

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
      {products.value === undefined ? (
        products.error !== undefined ? (
          <LoadFailure error={products.error} onRetry={products.reload} />
        ) : (
          <p className="note" role="status">
            Loading trial products…
          </p>
        )
      ) : !product ? (
        <Panel title="Product" testId="scenario-product">
          <p className="note empty">
            No trial products on this channel yet. Create one on the Device service console.
          </p>
          <div className="button-row">
            <button type="button" onClick={() => navigate('device-service')}>
              Open the Device service console
            </button>
            <button type="button" onClick={products.reload}>
              Check again
            </button>
          </div>
        </Panel>
      ) : (
        <>
          <RunPanel
            products={products.value}
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
            onStarted={(run, set) => {
              dryRun.follow(run, set);
              setRunsVersion((v) => v + 1);
            }}
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
            version={runsVersion + (dryRun.shown?.run.status === 'running' ? 0 : 1)}
            onOpen={(id) => void dryRun.open(id)}
            openId={dryRun.shown?.run.id}
          />
        </>
      )}
    </div>
  );
}
