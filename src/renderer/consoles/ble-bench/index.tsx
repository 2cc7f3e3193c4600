// The BLE bench: the adapter (simulated bench or hardware) and its BLE process, the live scan,
// the simulated boards, and the GATT explorer for the board the user connects to.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { usesSimulatedBench, type ScannedDevice } from '../../../core/app/contracts/ble';
import { sameUuid } from '../../../core/ble/port';
import { LoadFailure } from '../../components/LoadFailure';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { AdapterStatus } from './AdapterStatus';
import { AdvertisementInspector } from './AdvertisementInspector';
import { GattExplorer, type Connection } from './GattExplorer';
import { HciTrace } from './HciTrace';
import { ScanView } from '../../components/ScanView';
import { SimBench } from './SimBench';
import { scanRestartKey, useBleStatus } from '../../lib/use-ble-status';
import { useGattLog } from './use-gatt-log';
import { useNames } from '../../lib/use-names';
import { useScan } from '../../lib/use-scan';
import { useUuidChoices } from '../../lib/use-uuid-choices';
import type { UuidChoice } from '../../components/ScanView';

interface Open {
  connection: Connection;
  boardName: string;
  /** The trial product whose names and formats apply: the one whose service it advertises. */
  scope: string;
  scopeLabel: string;
}

/** Names and formats are kept per trial product; a board of no product shares the bench's. */
function scopeOf(device: ScannedDevice, choices: readonly UuidChoice[]) {
  const product = choices.find(
    (c) => c.productId !== undefined && device.serviceUuids.some((u) => sameUuid(u, c.uuid)),
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
  const gattLog = useGattLog();
  const connect = useAction<Connection>();
  const [connectingId, setConnectingId] = useState<string>();
  /** The board of the last Connect, and the BLE process it was tried on. */
  const [tried, setTried] = useState<{ id: string; generation: string }>();
  const [open, setOpen] = useState<Open>();
  const [inspectedId, setInspectedId] = useState<string>();
  const inspected = inspectedId === undefined ? undefined : scan.entries.get(inspectedId)?.device;
  const boardNames = useMemo(
    () =>
      Object.fromEntries(
        (open?.connection.services ?? []).flatMap((s) =>
          [s, ...s.characteristics].flatMap((a) => (a.name ? [[a.uuid, a.name]] : [])),
        ),
      ),
    [open],
  );
  const names = useNames(open?.scope ?? 'bench', boardNames);
  const serviceLabels = useMemo(
    () => Object.fromEntries(uuidChoices.map((c) => [c.uuid, c.label])),
    [uuidChoices],
  );
  // A connection (and its explorer, subscriptions and log) belongs to the process that made it.
  const [openedIn, setOpenedIn] = useState(generation);
  if (openedIn !== generation) {
    setOpenedIn(generation);
    setOpen(undefined);
  }
  // Read when connecting, so the row callback stays the same object and rows stay memoised.
  const openRef = useRef(open);
  const choicesRef = useRef(uuidChoices);
  useEffect(() => {
    openRef.current = open;
    choicesRef.current = uuidChoices;
  }, [open, uuidChoices]);
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
        const previous = openRef.current;
        // One explorer at a time: the board connected before is let go first.
        if (previous)
          await api.ble
            .disconnect({ connectionId: previous.connection.connectionId })
            .catch(() => undefined);
        setOpen(undefined);
        const connection = await api.ble.connect({ deviceId: device.id });
        setOpen({
          connection,
          boardName: device.localName ?? device.address,
          ...scopeOf(device, choicesRef.current),
        });
        return connection;
      }).finally(() => setConnectingId(undefined));
    },
    [api, runConnect],
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
            <AdvertisementInspector
              device={inspected}
              labels={serviceLabels}
              onClose={() => setInspectedId(undefined)}
            />
          )}
          {open && (
            <GattExplorer
              key={open.connection.connectionId}
              connection={open.connection}
              boardName={open.boardName}
              log={gattLog.entries.filter((e) => e.connectionId === open.connection.connectionId)}
              names={names}
              scopeLabel={open.scopeLabel}
              onClosed={() => setOpen(undefined)}
              onClearLog={() => gattLog.clear(open.connection.connectionId)}
            />
          )}
          {usesSimulatedBench(ble.status) && <SimBench generation={generation} />}
          <HciTrace />
        </>
      )}
    </div>
  );
}
