// The live scan list: filters (a product's service UUID, name, minimum RSSI), a stable sort,
// one memoised row per board with its RSSI sparkline, and only the first rows drawn until the
// user asks for all, so a tray of 500 boards stays smooth. Rows never move under the pointer: a
// board that stops matching the filters (a provisioned board advertises its product's service,
// no longer the blank one) keeps its row, faded, until the filters or the sort change.
import {
  Fragment,
  memo,
  useDeferredValue,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import type { ScannedDevice } from '../../core/usecases/bench/bench-schema';
import { normalizeUuid, uuidProblem } from '../../core/ble/port';
import { RSSI_MAX_DBM, RSSI_MIN_DBM } from '../../core/bounds';
import { rssiText } from '../../core/ble/rssi';
import { parseWholeNumber } from '../../core/whole-number';
import { ErrorNotice } from './ErrorNotice';
import { Panel } from './Panel';
import { TableHead } from './TableHead';
import { TextField } from './TextField';
import { formatClockTime, shownUuid } from '../lib/format';
import { sigName } from '../../core/ble/names/sig';
import { RssiSparkline } from './RssiSparkline';
import { matches, sortEntries, type ScanEntry, type SortKey } from '../lib/scan-model';
import type { Scan } from '../lib/use-scan';
import { useFirstRows } from './FirstRows';

/** A board not heard for this long is shown faded. */
const STALE_MS = 5000;

export interface UuidChoice {
  uuid: string;
  label: string;
  /** The trial product this UUID is the service of, when it is one. */
  productId?: string;
}

interface RowAction {
  label: string;
  run: (device: ScannedDevice) => void;
  /** The board the action is running for, shown busy. */
  busyId?: string;
  disabled?: boolean;
  /** The last run's failure, shown under the row it was run for (above the table if that row is not shown). */
  failure?: { id: string; error: unknown };
  /**
   * What the action is doing or did for one board (a provisioning's steps and result), shown
   * under its row and brought into view whenever `revision` changes, so the result is where the
   * click was (above the table if that row is not shown).
   */
  detail?: { id: string; revision: string; content: ReactNode };
  /**
   * Boards the action already holds (connected ones): their row says `status` and offers the
   * way back (`label`, e.g. Disconnect) instead of the action.
   */
  active?: {
    ids: ReadonlySet<string>;
    status: string;
    label: string;
    run: (device: ScannedDevice) => void;
  };
}

interface ScanViewProps {
  title: string;
  scan: Scan;
  /** Service UUIDs worth filtering by (trial products, provisioning profiles), also shown as labels. */
  uuidChoices: readonly UuidChoice[];
  defaultServiceUuid?: string;
  action?: RowAction;
  /** More buttons for the header (pause, …). */
  headerActions?: ReactNode;
  testId?: string;
  /** The board whose advertisement is being inspected; its name is a button that selects it. */
  selectedId?: string;
  onSelect?: (device: ScannedDevice) => void;
}

/** The same UUID in any form gives one key; text that is no UUID keys itself. */
function key(uuid: string): string {
  return uuidProblem(uuid) === undefined ? normalizeUuid(uuid) : uuid;
}

export function ScanView({
  title,
  scan,
  uuidChoices,
  defaultServiceUuid = '',
  action,
  headerActions,
  testId,
  selectedId,
  onSelect,
}: ScanViewProps) {
  const [serviceText, setServiceText] = useState(shownUuid(defaultServiceUuid));
  const [name, setName] = useState('');
  const [minRssiText, setMinRssiText] = useState('');
  const [sort, setSort] = useState<SortKey>('name');
  const id = useId();

  // An RSSI that cannot be met or is not exact filters nothing and says why once left.
  const minRssiParsed =
    minRssiText.trim() === ''
      ? undefined
      : parseWholeNumber(minRssiText, { min: RSSI_MIN_DBM, max: RSSI_MAX_DBM, unit: 'dBm' });
  const minRssiError = minRssiParsed && !minRssiParsed.ok ? [minRssiParsed.message] : [];
  const minRssi = minRssiParsed?.ok ? minRssiParsed.value : undefined;
  // Any UUID form filters (dashed, undashed, 16-bit, braces); a half-typed one filters nothing.
  const serviceProblem = serviceText.trim() === '' ? undefined : uuidProblem(serviceText);
  const serviceUuid = serviceProblem === undefined ? serviceText.trim() : '';

  // Filtering and sorting follow typing and batches without blocking either.
  const entries = useDeferredValue(scan.entries);
  const filter = useDeferredValue(
    useMemo(() => ({ serviceUuid, name, minRssi }), [serviceUuid, name, minRssi]),
  );
  // The rows listed under these filters and this sort, so one that stops matching keeps its place.
  const [listed, setListed] = useState<{ filter: typeof filter; sort: SortKey; ids: string[] }>();
  const { rows, left } = useMemo(() => {
    const same = listed?.filter === filter && listed.sort === sort;
    const before = new Set(same ? listed.ids : []);
    const left = new Set<string>();
    const kept = [...entries.values()].filter((e) => {
      if (matches(e, filter)) return true;
      if (!before.has(e.device.id)) return false;
      left.add(e.device.id);
      return true;
    });
    return { rows: sortEntries(kept, sort), left };
  }, [entries, filter, sort, listed]);
  const ids = rows.map((e) => e.device.id);
  if (
    listed?.filter !== filter ||
    listed.sort !== sort ||
    listed.ids.length !== ids.length ||
    listed.ids.some((id, i) => id !== ids[i])
  )
    setListed({ filter, sort, ids });
  const labels = useMemo(
    () => new Map(uuidChoices.map((c) => [key(c.uuid), c.label])),
    [uuidChoices],
  );
  const { shown, more } = useFirstRows(rows);
  const now = scan.lastBatchAt ?? 0;

  return (
    <Panel
      title={title}
      testId={testId}
      actions={
        <>
          <span className="muted" data-testid="scan-count" aria-live="polite">
            {scan.scanning ? 'Scanning' : 'Not scanning'} · {scan.entries.size} heard ·{' '}
            {rows.length - left.size} shown
          </span>
          {headerActions}
          <button type="button" className="link" onClick={scan.clear}>
            Clear list
          </button>
        </>
      }
    >
      <div className="inline-form ble-filters" role="search" aria-label={`Filter ${title}`}>
        <TextField
          label="Service UUID"
          className="uuid"
          mono
          value={serviceText}
          onChange={setServiceText}
          onBlur={() => serviceProblem === undefined && setServiceText(shownUuid(serviceText))}
          placeholder="Any service"
          suggestions={uuidChoices.map((c) => ({ value: shownUuid(c.uuid), label: c.label }))}
          messages={serviceProblem === undefined ? [] : [serviceProblem]}
          showAfterLeaving
        />
        <TextField label="Name contains" value={name} onChange={setName} maxLength={64} />
        <TextField
          label="Minimum RSSI (dBm)"
          className="number"
          value={minRssiText}
          onChange={setMinRssiText}
          inputMode="numeric"
          placeholder="e.g. -70"
          messages={minRssiError}
          showAfterLeaving
        />
        <div className="field">
          <label htmlFor={`${id}-sort`}>Sort by</label>
          <select
            id={`${id}-sort`}
            value={sort}
            onChange={(event) => setSort(event.target.value as SortKey)}
          >
            <option value="name">Name</option>
            <option value="signal">Signal (strongest first)</option>
          </select>
        </div>
      </div>
      <ErrorNotice error={scan.error} />
      {action?.failure && !shown.some((e) => e.device.id === action.failure?.id) && (
        <ErrorNotice error={action.failure.error} testId="row-action-error" />
      )}
      {action?.detail && !shown.some((e) => e.device.id === action.detail?.id) && (
        <div className="row-detail" data-testid="row-detail">
          {action.detail.content}
        </div>
      )}
      {rows.length === 0 ? (
        <p className="note empty">
          {scan.entries.size === 0
            ? scan.scanning
              ? 'Listening for boards…'
              : 'No boards heard.'
            : 'No board matches these filters.'}
        </p>
      ) : (
        <div className="table-scroll ble-scan-scroll">
          <table className="grid ble-scan" aria-label={title}>
            <TableHead
              columns={['Name', 'Address', 'Services', 'RSSI', 'Last seen']}
              rowActions={Boolean(action)}
            />
            <tbody>
              {shown.map((entry) => (
                <Fragment key={entry.device.id}>
                  <ScanRow
                    entry={entry}
                    serviceLabels={entry.device.serviceUuids
                      .map((u) => labels.get(key(u)) ?? sigName(u, ['service']))
                      .filter(Boolean)
                      .join(', ')}
                    stale={now - entry.device.lastSeen > STALE_MS}
                    left={left.has(entry.device.id)}
                    actionLabel={action?.label}
                    onAction={action?.run}
                    active={action?.active?.ids.has(entry.device.id) ? action.active : undefined}
                    actionBusy={action?.busyId === entry.device.id}
                    actionDisabled={action?.disabled ?? false}
                    selected={selectedId === entry.device.id}
                    onSelect={onSelect}
                  />
                  {action?.detail?.id === entry.device.id && (
                    <RowDetail revision={action.detail.revision}>{action.detail.content}</RowDetail>
                  )}
                  {action?.failure?.id === entry.device.id && (
                    // The failure is brought into the window when it appears, under its row.
                    <tr
                      className="row-error"
                      ref={(row) => row?.scrollIntoView({ block: 'nearest' })}
                    >
                      <td colSpan={6}>
                        <ErrorNotice error={action.failure.error} testId="row-action-error" />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more}
    </Panel>
  );
}

/**
 * A row under a board's row, spanning the table, scrolled into view when its revision changes,
 * with the board's row above it: where both do not fit, the board's row wins.
 */
function RowDetail({ revision, children }: { revision: string; children: ReactNode }) {
  const row = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    row.current?.scrollIntoView({ block: 'nearest' });
    row.current?.previousElementSibling?.scrollIntoView({ block: 'nearest' });
  }, [revision]);
  return (
    <tr className="row-detail" ref={row} data-testid="row-detail">
      <td colSpan={6}>{children}</td>
    </tr>
  );
}

interface ScanRowProps {
  entry: ScanEntry;
  serviceLabels: string;
  stale: boolean;
  /** No longer matches the filters: kept in place, faded, its action off. */
  left: boolean;
  actionLabel?: string;
  onAction?: (device: ScannedDevice) => void;
  actionBusy: boolean;
  actionDisabled: boolean;
  active?: RowAction['active'];
  selected: boolean;
  onSelect?: (device: ScannedDevice) => void;
}

const ScanRow = memo(function ScanRow({
  entry,
  serviceLabels,
  stale,
  left,
  actionLabel,
  onAction,
  actionBusy,
  actionDisabled,
  active,
  selected,
  onSelect,
}: ScanRowProps) {
  const { device, history } = entry;
  const name = device.localName ?? device.address;
  return (
    <tr
      data-testid="scan-row"
      data-device-id={device.id}
      data-name={device.localName ?? ''}
      data-left={left || undefined}
      title={left ? 'No longer matches the filters; kept in place until they change' : undefined}
      className={
        [(stale || left) && 'ble-stale', selected && 'selected'].filter(Boolean).join(' ') ||
        undefined
      }
      aria-selected={onSelect ? selected : undefined}
    >
      <td className="name">
        {onSelect ? (
          <button
            type="button"
            className="link"
            aria-label={`Inspect the advertisement of ${name}`}
            aria-pressed={selected}
            onClick={() => onSelect(device)}
          >
            {device.localName ?? <em className="muted">no name</em>}
          </button>
        ) : (
          (device.localName ?? <em className="muted">no name</em>)
        )}
      </td>
      <td className="mono nowrap">{device.address}</td>
      <td>
        {serviceLabels && (
          <div className="ble-service-label" title={serviceLabels}>
            {serviceLabels}
          </div>
        )}
        <div className="ble-uuids mono">{device.serviceUuids.map(shownUuid).join(' ')}</div>
      </td>
      <td className="ble-rssi">
        <span className="mono">{rssiText(device.rssi)}</span>
        <RssiSparkline samples={history} />
      </td>
      <td className="mono nowrap">{formatClockTime(device.lastSeen)}</td>
      {actionLabel && onAction && active && (
        <td className="row-actions">
          <span className="good" data-testid="row-status">
            {active.status}
          </span>{' '}
          <button
            type="button"
            aria-label={`${active.label} ${name}`}
            onClick={() => active.run(device)}
          >
            {active.label}
          </button>
        </td>
      )}
      {actionLabel && onAction && !active && (
        <td className="row-actions">
          <button
            type="button"
            aria-label={`${actionLabel} ${name}`}
            disabled={actionDisabled || actionBusy || left || !device.connectable}
            title={
              left
                ? 'No longer matches the filters'
                : device.connectable
                  ? undefined
                  : 'This board does not accept connections'
            }
            onClick={() => onAction(device)}
          >
            {actionBusy ? 'Working…' : actionLabel}
          </button>
        </td>
      )}
    </tr>
  );
});
