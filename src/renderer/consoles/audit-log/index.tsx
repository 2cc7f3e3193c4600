// The audit log: which PSDI went onto which board, for which product, by which station, and
// how it ended. Searchable and paged; exported as CSV with the same filters.
import { Fragment, useId, useMemo, useState, type FormEvent } from 'react';
import type { AuditRecordView } from '../../../core/app/contracts/audit';
import { AUDIT_TEXT_MIN, describeCount, type AuditCursor } from '../../../core/audit/records';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { TraceButton } from '../../components/TraceButton';
import { useApi } from '../../lib/api-context';
import { formatTime, zoneOf } from '../../lib/format';
import { useLoad } from '../../lib/use-load';
import { RecordHistory } from '../../components/RecordHistory';
import { RecordState } from '../../components/RecordState';
import { LoadFailure } from '../../components/LoadFailure';
import { ExportCsv } from './ExportCsv';
import { PsdiCell } from '../../components/PsdiCell';

const PAGE_SIZE = 50;
const STATES: AuditRecordView['state'][] = [
  'reserved',
  'written',
  'verified',
  'failed',
  'released',
];

interface Filters {
  productId: string;
  station: string;
  text: string;
  state: '' | AuditRecordView['state'];
}

export function AuditLog() {
  const id = useId();
  const products = useLoad((api) => api.things.listTrialProducts({}), []);
  // Every station that wrote to this log (one on this machine's log, several on a line's).
  const line = useLoad((api) => api.line.getStatus({}), []);
  const [draft, setDraft] = useState<Filters>({
    productId: '',
    station: '',
    text: '',
    state: '',
  });
  const [applied, setApplied] = useState<Filters>(draft);
  // Keyset paging: the cursor of each page walked so far; "Newer" steps back through them.
  const [cursors, setCursors] = useState<AuditCursor[]>([]);
  const after = cursors[cursors.length - 1];
  const query = useMemo(
    () => ({
      productId: applied.productId || undefined,
      station: applied.station || undefined,
      text: applied.text.trim() || undefined,
      states: applied.state ? [applied.state] : undefined,
    }),
    [applied],
  );
  const page = useLoad(
    (api) => api.audit.search({ ...query, after, limit: PAGE_SIZE }),
    [query, after],
  );

  function apply(next: Filters) {
    setDraft(next);
    setApplied(next);
    setCursors([]);
  }

  // A text too short to search is said at the field and not sent: the last result is not left
  // listed under a refusal as if it answered it.
  const [tooShort, setTooShort] = useState(false);
  function search(event: FormEvent) {
    event.preventDefault();
    const length = draft.text.trim().length;
    setTooShort(length > 0 && length < AUDIT_TEXT_MIN);
    if (length > 0 && length < AUDIT_TEXT_MIN) return;
    apply(draft);
  }

  const items = page.value?.items ?? [];
  const total = page.value?.total ?? 0;
  const first = cursors.length * PAGE_SIZE + 1;
  const textHint =
    page.value?.textMatch === 'prefix'
      ? 'Matches the start of a PSDI or board address (this database has no trigram index)'
      : `Any part of a PSDI, board address or name; at least ${AUDIT_TEXT_MIN} characters`;

  return (
    <div className="page audit-page">
      <header className="page-header">
        <h1>Audit log</h1>
        <p className="muted">Every PSDI written, to which board, and whether it was verified.</p>
      </header>
      <Panel
        title="Provisioning records"
        testId="audit-log"
        actions={
          <>
            <span className="muted" data-testid="audit-count" aria-live="polite">
              {page.value
                ? total === 0
                  ? 'No records'
                  : `${first}–${first + items.length - 1} of ${describeCount(total, page.value.totalCapped)}`
                : 'Loading…'}
            </span>
            <button type="button" className="link" onClick={page.reload}>
              Refresh
            </button>
          </>
        }
      >
        <form className="inline-form" role="search" aria-label="Search records" onSubmit={search}>
          <div className="field">
            <label htmlFor={`${id}-product`}>Product</label>
            <select
              id={`${id}-product`}
              value={draft.productId}
              onChange={(event) => apply({ ...draft, productId: event.target.value })}
            >
              <option value="">All products</option>
              {products.value?.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-station`}>Station</label>
            <select
              id={`${id}-station`}
              value={draft.station}
              onChange={(event) => apply({ ...draft, station: event.target.value })}
            >
              <option value="">All stations</option>
              {line.value?.stations.map((s) => (
                <option key={s.station} value={s.station}>
                  {s.station}
                </option>
              ))}
            </select>
          </div>
          <TextField
            label="PSDI or board address"
            value={draft.text}
            onChange={(text) => {
              setDraft({ ...draft, text });
              setTooShort(false);
            }}
            messages={tooShort ? [`needs at least ${AUDIT_TEXT_MIN} characters to search`] : []}
            maxLength={200}
            type="search"
            hint={textHint}
          />
          <div className="field">
            <label htmlFor={`${id}-state`}>State</label>
            <select
              id={`${id}-state`}
              value={draft.state}
              onChange={(event) =>
                apply({ ...draft, state: event.target.value as Filters['state'] })
              }
            >
              <option value="">Any state</option>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="primary">
            Search
          </button>
          <ExportCsv query={query} matching={page.value?.total} />
        </form>
        {page.error !== undefined && <LoadFailure error={page.error} onRetry={page.reload} />}
        {page.error !== undefined ? null : page.value && items.length === 0 ? (
          <p className="note empty">No records match.</p>
        ) : (
          <div className="table-scroll">
            <table
              className={`grid audit-table${items.some(detailOf) ? ' has-detail' : ''}`}
              data-testid="audit-table"
            >
              <caption className="offscreen">Provisioning records</caption>
              <TableHead
                columns={[
                  `Updated (${zoneOf()})`,
                  'Product',
                  'PSDI',
                  'Board',
                  'State',
                  'Detail',
                  'Station',
                ]}
                rowActions
              />
              <tbody>
                {items.map((r) => (
                  <AuditRow key={r.id} record={r} onChanged={page.reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        <div className="button-row">
          <button
            type="button"
            disabled={cursors.length === 0 || page.loading}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Newer
          </button>
          <button
            type="button"
            disabled={!page.value?.next || page.loading}
            onClick={() => {
              const next = page.value?.next;
              if (next) setCursors([...cursors, next]);
            }}
          >
            Older
          </button>
        </div>
      </Panel>
    </div>
  );
}

/** A record's failure in one line: "step write: …"; empty for a record that did not fail. */
function detailOf(r: AuditRecordView): string {
  return `${r.failedStep ? `step ${r.failedStep}: ` : ''}${r.error ?? ''}`;
}

/**
 * One line per record, so a page of the log reads at a glance; the full error, the times, the
 * product's UUIDs and the HCI trace open beneath it on demand.
 */
function AuditRow({ record: r, onChanged }: { record: AuditRecordView; onChanged: () => void }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [releasing, setReleasing] = useState(false);
  const [reason, setReason] = useState('');
  // Only a failure whose commit went out holds its PSDI; the operator who checked the board
  // gives it back (docs/decisions.md, "Provisioning that explains itself").
  const releasable = r.state === 'failed' && r.psdiHeld;
  const detailsId = useId();
  const detail = detailOf(r);
  return (
    <Fragment>
      <tr data-testid="audit-row" data-state={r.state} className="audit-row">
        <td className="mono nowrap" title={`${new Date(r.updatedAt).toISOString()} (as exported)`}>
          {formatTime(r.updatedAt)}
        </td>
        <td className="audit-clip audit-product" title={r.productName}>
          {r.productName}
        </td>
        <PsdiCell psdi={r.psdi} />
        <td className="audit-board">
          {/* The address is what a board is found by: whole; a long name gives way to it. */}
          <span className="audit-board-line">
            {r.boardName && (
              <strong className="audit-board-name" title={r.boardName}>
                {r.boardName}
              </strong>
            )}
            <span className="mono muted nowrap">{r.boardAddress}</span>
          </span>
        </td>
        <td>
          <RecordState record={r} />
        </td>
        <td className="audit-clip audit-detail" title={detail}>
          {detail}
        </td>
        <td className="audit-clip" title={r.station}>
          {r.station}
        </td>
        <td className="row-actions">
          <button
            type="button"
            className="link"
            aria-expanded={open}
            aria-controls={detailsId}
            aria-label={`Details of ${r.psdi}`}
            onClick={() => setOpen(!open)}
          >
            {open ? 'Hide' : 'Details'}
          </button>
        </td>
      </tr>
      {open && (
        <tr id={detailsId} className="audit-details" data-testid="audit-details">
          <td colSpan={8}>
            <dl className="facts">
              <dt>Created</dt>
              <dd className="mono">
                {formatTime(r.createdAt)} {zoneOf(r.createdAt)}
              </dd>
              {r.verifiedAt !== null && (
                <>
                  <dt>Verified</dt>
                  <dd className="mono">
                    {formatTime(r.verifiedAt)} {zoneOf(r.verifiedAt)}
                  </dd>
                </>
              )}
              <dt>Board</dt>
              <dd>
                {r.boardName && <strong>{r.boardName}</strong>}{' '}
                <span className="mono">
                  {r.boardAddress} ({r.boardId})
                </span>
              </dd>
              <dt>PSDI</dt>
              <dd>
                <span className="mono">{r.psdi}</span> from the{' '}
                {r.psdiSource === 'tool' ? 'bench' : 'board'}, profile {r.profileId}
                {r.psdiHeld && ', held out of circulation'}
                {releasable && (
                  <button
                    type="button"
                    className="link"
                    data-testid="release-psdi"
                    aria-label={`Release PSDI ${r.psdi}`}
                    onClick={() => setReleasing(true)}
                  >
                    Release PSDI
                  </button>
                )}
                {releasing && (
                  <ConfirmDialog
                    title={`Release PSDI ${r.psdi}?`}
                    confirmLabel="Release PSDI"
                    onCancel={() => setReleasing(false)}
                    onConfirm={async () => {
                      await api.audit.releasePsdi({ recordId: r.id, reason });
                      setReleasing(false);
                      onChanged();
                    }}
                  >
                    <p>
                      Record #{r.id} failed at {r.failedStep ?? 'an unknown step'} after its commit
                      went out, so board {r.boardName ?? ''}{' '}
                      <span className="mono">{r.boardAddress}</span> may carry{' '}
                      <span className="mono">{r.psdi}</span>. Release it only after checking the
                      board does not: the PSDI will be handed to the next board.
                    </p>
                    <TextField
                      label="Why it can be used again"
                      value={reason}
                      onChange={setReason}
                      maxLength={200}
                    />
                  </ConfirmDialog>
                )}
              </dd>
              {/* A record says what was written, never what was planned: before the board
                  acknowledged a commit these are only the product's UUIDs (the error says what
                  the board took). */}
              <dt>{r.writtenAt !== null ? 'UUIDs written' : 'Product UUIDs (not committed)'}</dt>
              <dd className="mono">
                {r.serviceUuid} · {r.psdiServiceUuid} · {r.psdiCharacteristicUuid}
              </dd>
              {r.imageHash !== null && (
                <>
                  <dt>Image flashed</dt>
                  <dd>
                    {/* A SHA-256 is 64 digits: the first 8 tell images apart at a glance, the
                        whole one is on hover and copied (docs/decisions/ble-and-hci.md). */}
                    <span className="copyable" data-testid="audit-image-hash">
                      <code className="mono" title={r.imageHash}>
                        {shortHash(r.imageHash)}
                      </code>
                      <CopyButton value={r.imageHash} label={`image hash of ${r.psdi}`} />
                    </span>
                  </dd>
                </>
              )}
              {detail && (
                <>
                  <dt>Error</dt>
                  <dd>{detail}</dd>
                </>
              )}
              <dt>Attempts</dt>
              <dd>
                {r.attempts} of the last step
                {r.psdiReturned && ' · PSDI back in the pool'}
                <RecordHistory history={r.history} errorShown={Boolean(detail)} />
              </dd>
              <dt>HCI trace</dt>
              <dd>
                <TraceButton
                  span={() => ({ from: r.createdAt, to: r.updatedAt })}
                  label={`provisioning-${r.id}`}
                />
              </dd>
            </dl>
          </td>
        </tr>
      )}
    </Fragment>
  );
}

/** The first 8 hex digits of an image's hash and an ellipsis saying there is more. */
function shortHash(hash: string): string {
  return hash.length > 8 ? `${hash.slice(0, 8)}…` : hash;
}
