// The BLE bench: the adapter (simulated bench or hardware) and its BLE process, the live scan,
// the simulated boards, and the GATT explorer for the board the user connects to.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { usesSimulatedBench, type ScannedDevice } from '../../../core/usecases/bench/bench-schema';
import type { BoardLink } from '../../../core/ble/link-record';
import { sameUuid } from '../../../core/ble/port';
import { FaultsPanel } from '../../components/FaultsPanel';
import { LoadFailure } from '../../components/LoadFailure';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { AdapterBonds } from './AdapterBonds';
import { AdapterStatus } from './AdapterStatus';
import { AdvertisementInspector } from './AdvertisementInspector';
import { GattExplorer } from './GattExplorer';
import { HciTrace } from './HciTrace';
import { ScanView } from '../../components/ScanView';
import { SimBench } from './SimBench';
import { scanRestartKey, useBleStatus } from '../../lib/use-ble-status';
import { useLinks, type GattLogEntry } from './use-links';
import { useNames } from '../../lib/use-names';
import { useScan } from '../../lib/use-scan';
import { useUuidChoices } from '../../lib/use-uuid-choices';
import type { UuidChoice } from '../../components/ScanView';

/**
 * Names and formats are kept per trial product: the one whose service the board advertised (a
 * provisioned board advertises its product's) or its GATT table holds; a board of no product
 * shares the bench's.
 */
function scopeOf(link: BoardLink, choices: readonly UuidChoice[]) {
  const uuids = [...link.advertisedServices, ...link.services.map((s) => s.uuid)];
  const product = choices.find(
    (c) => c.productId !== undefined && uuids.some((u) => sameUuid(u, c.uuid)),
  );
  return product?.productId
    ? { scope: product.productId, scopeLabel: `the product “${product.label}”` }
    : { scope: 'bench', scopeLabel: 'boards of no trial product' };
}

export function BleBench() {
  const api = useApi();
  const ble = useBleStatus();
  const [paused, setPaused] = useState(false);
  const ready = ble.status?.adapterState === 'poweredOn';
  const generation = scanRestartKey(ble.status);
  const scan = useScan(ready && !paused, generation);
  const uuidChoices = useUuidChoices();
  // Every link the BLE process holds, whoever opened it: each one a card.
  const { links, logOf, clear } = useLinks();
  const connect = useAction<unknown>();
  const [connectingId, setConnectingId] = useState<string>();
  /** The board of the last Connect, and the BLE process it was tried on. */
  const [tried, setTried] = useState<{ id: string; generation: string }>();
  /** The connection just made, brought into view once its card is drawn. */
  const justOpened = useRef<string>(undefined);
  /** Counts Connect's answers: the card may be drawn before one (the list comes first). */
  const [answered, setAnswered] = useState(0);
  const [inspectedId, setInspectedId] = useState<string>();
  const inspected = inspectedId === undefined ? undefined : scan.entries.get(inspectedId)?.device;
  const serviceLabels = useMemo(
    () => Object.fromEntries(uuidChoices.map((c) => [c.uuid, c.label])),
    [uuidChoices],
  );
  useEffect(() => {
    if (justOpened.current === undefined) return;
    const card = document.querySelector(`[data-connection-id="${justOpened.current}"]`);
    if (!card) return;
    // A question the person must answer keeps the page where it is: the card would carry it out
    // of view (docs/decisions/app-and-ui.md, "A question stays in view").
    if (!questionOpen()) card.scrollIntoView({ block: 'start' });
    justOpened.current = undefined;
  }, [links, answered]);
  const inspect = useCallback(
    (device: ScannedDevice) => setInspectedId((id) => (id === device.id ? undefined : device.id)),
    [],
  );
  const generationRef = useRef(generation);
  useEffect(() => {
    generationRef.current = generation;
  }, [generation]);
  const { run: runConnect } = connect;
  const connectFailure =
    tried && connect.error !== undefined && tried.generation === generation
      ? { id: tried.id, error: connect.error }
      : undefined;

  const connectTo = useCallback(
    (device: ScannedDevice) => {
      setConnectingId(device.id);
      setTried({ id: device.id, generation: generationRef.current });
      void runConnect(async () => {
        const connection = await api.ble.connect({ deviceId: device.id });
        justOpened.current = connection.connectionId;
        setAnswered((n) => n + 1);
        return connection;
      }).finally(() => setConnectingId(undefined));
    },
    [api, runConnect],
  );
  const connectedIds = useMemo(
    () => new Set(links.filter((l) => l.state === 'connected').map((l) => l.deviceId)),
    [links],
  );
  const disconnectRow = useCallback(
    (device: ScannedDevice) => {
      const link = links.find((l) => l.deviceId === device.id && l.state === 'connected');
      if (link) void api.ble.disconnect({ connectionId: link.connectionId }).catch(() => undefined);
    },
    [api, links],
  );

  return (
    <div className="page ble-page">
      <header className="page-header">
        <h1>BLE bench</h1>
        <p className="muted">
          Scan for boards, explore their GATT tables, and run the simulated bench.
        </p>
      </header>
      {!ble.status ? (
        ble.error !== undefined ? (
          <LoadFailure error={ble.error} onRetry={ble.reload} />
        ) : (
          <p className="note" role="status">
            Loading the adapter…
          </p>
        )
      ) : (
        <>
          <AdapterStatus status={ble.status} onStatus={ble.set} />
          {links.map((link) => (
            <ConnectedBoard
              key={link.connectionId}
              link={link}
              log={logOf(link.connectionId)}
              uuidChoices={uuidChoices}
              onClearLog={() => clear(link.connectionId)}
            />
          ))}
          <ScanView
            title="Scanned boards"
            testId="ble-scan"
            scan={scan}
            uuidChoices={uuidChoices}
            action={{
              label: 'Connect',
              run: connectTo,
              busyId: connectingId,
              failure: connectFailure,
              active: {
                ids: connectedIds,
                status: 'Connected',
                label: 'Disconnect',
                run: disconnectRow,
              },
            }}
            selectedId={inspectedId}
            onSelect={inspect}
            headerActions={
              <button
                type="button"
                className="link"
                disabled={!ready}
                onClick={() => setPaused(!paused)}
              >
                {paused ? 'Resume scan' : 'Pause scan'}
              </button>
            }
          />
          {inspected && (
            // Opens in view, below the list it was picked from, whatever the scroll (issue 45).
            <div key={inspected.id} ref={showWhole}>
              <AdvertisementInspector
                device={inspected}
                labels={serviceLabels}
                onClose={() => setInspectedId(undefined)}
              />
            </div>
          )}
          {/* Under the scan, so a window opens on the adapters, the links and the boards heard. */}
          <AdapterBonds status={ble.status} />
          {usesSimulatedBench(ble.status) && <SimBench generation={generation} />}
          <FaultsPanel />
          <HciTrace />
        </>
      )}
    </div>
  );
}

/** One connected board: its link card and GATT table, named in its own product's scope. */
function ConnectedBoard({
  link,
  log,
  uuidChoices,
  onClearLog,
}: {
  link: BoardLink;
  log: readonly GattLogEntry[];
  uuidChoices: readonly UuidChoice[];
  onClearLog: () => void;
}) {
  const boardNames = useMemo(
    () =>
      Object.fromEntries(
        link.services.flatMap((s) =>
          [s, ...s.characteristics].flatMap((a) => (a.name ? [[a.uuid, a.name]] : [])),
        ),
      ),
    [link.services],
  );
  const { scope, scopeLabel } = scopeOf(link, uuidChoices);
  const names = useNames(scope, boardNames);
  return (
    <GattExplorer
      link={link}
      log={log}
      names={names}
      scopeLabel={scopeLabel}
      onClearLog={onClearLog}
    />
  );
}

/**
 * Whether the page asks a question in its flow that waits for the person (Remove's "Links will
 * drop", a bond's Forget): the pairing prompts stand fixed over the page, so they do not count.
 */
function questionOpen(): boolean {
  return [...document.querySelectorAll('[role="alertdialog"]')].some(
    (question) => !question.closest('.pairing-prompts'),
  );
}

/** Scrolls a box just into view, its top first when it is taller than the window. */
function showWhole(box: HTMLElement | null) {
  if (!box) return;
  box.scrollIntoView({ block: 'nearest' });
  if (box.getBoundingClientRect().top < 0) box.scrollIntoView({ block: 'start' });
}
