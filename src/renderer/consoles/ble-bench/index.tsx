// The BLE bench: the adapter (simulated bench or hardware) and its BLE process, the live scan,
// the simulated boards, and the GATT explorer for the board the user connects to.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { usesSimulatedBench, type ScannedDevice } from '../../../core/app/contracts/ble';
import type { LinkInfo } from '../../../core/ble/link-parameters';
import { sameUuid } from '../../../core/ble/port';
import { FaultsPanel } from '../../components/FaultsPanel';
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
import { useGattLog, type GattLogEntry } from './use-gatt-log';
import { useNames } from '../../lib/use-names';
import { useScan } from '../../lib/use-scan';
import { useUuidChoices } from '../../lib/use-uuid-choices';
import type { UuidChoice } from '../../components/ScanView';

interface Open {
  connection: Connection;
  boardName: string;
  address: string;
  /** The trial product whose names and formats apply: the one whose service it advertises. */
  scope: string;
  scopeLabel: string;
  /** The MTU its link asked for, once a reconnect asked for one. */
  askedMtu?: number;
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
  const links = useLinks();
  const connect = useAction<Connection>();
  const [connectingId, setConnectingId] = useState<string>();
  /** The board of the last Connect, and the BLE process it was tried on. */
  const [tried, setTried] = useState<{ id: string; generation: string }>();
  /** Every connected board, each a card with its GATT table, in the order they were connected. */
  const [opens, setOpens] = useState<Open[]>([]);
  /** The connection just made, brought into view once its card is drawn. */
  const justOpened = useRef<string>(undefined);
  const [inspectedId, setInspectedId] = useState<string>();
  const inspected = inspectedId === undefined ? undefined : scan.entries.get(inspectedId)?.device;
  const serviceLabels = useMemo(
    () => Object.fromEntries(uuidChoices.map((c) => [c.uuid, c.label])),
    [uuidChoices],
  );
  // A connection (and its explorer, subscriptions and log) belongs to the process that made it.
  const [openedIn, setOpenedIn] = useState(generation);
  if (openedIn !== generation) {
    setOpenedIn(generation);
    setOpens([]);
  }
  // Read when connecting, so the row callback stays the same object and rows stay memoised.
  const choicesRef = useRef(uuidChoices);
  useEffect(() => {
    choicesRef.current = uuidChoices;
  }, [uuidChoices]);
  useEffect(() => {
    if (justOpened.current === undefined) return;
    document
      .querySelector(`[data-connection-id="${justOpened.current}"]`)
      ?.scrollIntoView({ block: 'start' });
    justOpened.current = undefined;
  }, [opens]);
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
        setOpens((list) => [
          ...list.filter((o) => o.connection.deviceId !== device.id),
          {
            connection,
            boardName: device.localName ?? device.address,
            address: device.address,
            ...scopeOf(device, choicesRef.current),
          },
        ]);
        justOpened.current = connection.connectionId;
        return connection;
      }).finally(() => setConnectingId(undefined));
    },
    [api, runConnect],
  );
  const close = useCallback(
    (connectionId: string) =>
      setOpens((list) => list.filter((o) => o.connection.connectionId !== connectionId)),
    [],
  );
  const reopened = useCallback(
    (connectionId: string, connection: Connection, askedMtu: number) =>
      setOpens((list) =>
        list.map((o) =>
          o.connection.connectionId === connectionId ? { ...o, connection, askedMtu } : o,
        ),
      ),
    [],
  );
  const connectedIds = useMemo(() => new Set(opens.map((o) => o.connection.deviceId)), [opens]);
  const disconnectRow = useCallback(
    (device: ScannedDevice) => {
      const open = opens.find((o) => o.connection.deviceId === device.id);
      if (!open) return;
      void api.ble
        .disconnect({ connectionId: open.connection.connectionId })
        .catch(() => undefined)
        .then(() => close(open.connection.connectionId));
    },
    [api, opens, close],
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
          {opens.map((open) => (
            <ConnectedBoard
              key={open.connection.connectionId}
              open={open}
              link={links[open.connection.connectionId] ?? open.connection.link}
              log={gattLog.entries.filter((e) => e.connectionId === open.connection.connectionId)}
              onClosed={() => close(open.connection.connectionId)}
              onReconnected={(connection, askedMtu) =>
                reopened(open.connection.connectionId, connection, askedMtu)
              }
              onClearLog={() => gattLog.clear(open.connection.connectionId)}
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
            <AdvertisementInspector
              device={inspected}
              labels={serviceLabels}
              onClose={() => setInspectedId(undefined)}
            />
          )}
          {usesSimulatedBench(ble.status) && <SimBench generation={generation} />}
          <FaultsPanel />
          <HciTrace />
        </>
      )}
    </div>
  );
}

/** Live link changes (`ble:link`) by connection: the cards follow the controller's events. */
function useLinks(): Record<string, LinkInfo> {
  const api = useApi();
  const [links, setLinks] = useState<Record<string, LinkInfo>>({});
  useEffect(
    () =>
      api.on('ble:link', ({ connectionId, link }) =>
        setLinks((prev) => ({ ...prev, [connectionId]: link })),
      ),
    [api],
  );
  return links;
}

/** One connected board: its link card and GATT table, named in its own product's scope. */
function ConnectedBoard({
  open,
  link,
  log,
  onClosed,
  onReconnected,
  onClearLog,
}: {
  open: Open;
  link: LinkInfo | undefined;
  log: readonly GattLogEntry[];
  onClosed: () => void;
  onReconnected: (connection: Connection, askedMtu: number) => void;
  onClearLog: () => void;
}) {
  const boardNames = useMemo(
    () =>
      Object.fromEntries(
        open.connection.services.flatMap((s) =>
          [s, ...s.characteristics].flatMap((a) => (a.name ? [[a.uuid, a.name]] : [])),
        ),
      ),
    [open],
  );
  const names = useNames(open.scope, boardNames);
  return (
    <GattExplorer
      connection={open.connection}
      boardName={open.boardName}
      address={open.address}
      link={link}
      log={log}
      names={names}
      scopeLabel={open.scopeLabel}
      onClosed={onClosed}
      askedMtu={open.askedMtu}
      onReconnected={onReconnected}
      onClearLog={onClearLog}
    />
  );
}
