// One connected board's GATT table: every service and characteristic with its name, UUID and
// properties, and read, write (typed as hex, UTF-8 or base64), subscribe and unsubscribe on
// each, beside the log of everything that happened on the connection. Each characteristic can
// be renamed and given a value format, kept per product; numeric notifications are plotted.
// Everything shown comes from the BLE process's link (its table, subscriptions and log), so a
// reload, a second window and a reconnect show the same values (docs/decisions.md, "The BLE
// process holds the links").
import { useMemo, useState, type FormEvent } from 'react';
import { subscriptionKey, type BoardLink } from '../../../core/ble/link-record';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { formatClockTime } from '../../lib/format';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { formatUuid, sameUuid } from '../../../core/ble/port';
import { MCUMGR_SERVICE_UUID } from '../../../core/ble/mcumgr/service';
import { BytesInput, type BytesText } from '../../components/BytesInput';
import { hexToBytes } from '../../../core/bytes';
import { decodeValue, isNumeric } from '../../../core/ble/values/value-format';
import { toHex } from './bytes';
import { BytesView } from './BytesView';
import { GattLog } from './GattLog';
import { NotificationPlot, type PlotPoint } from './NotificationPlot';
import { ValueFormatPicker } from './ValueFormatPicker';
import { LinkCard } from './LinkCard';
import { FirmwarePanel } from './FirmwarePanel';
import type { GattLogEntry } from './use-links';
import type { Names } from '../../lib/use-names';

/** Notifications kept on a plot. */
const PLOT_POINTS = 300;

/** Who opened a link other than the explorer, as its card says. */
const OPENED_BY: Record<BoardLink['user'], string | undefined> = {
  explorer: undefined,
  provisioning: 'provisioning',
  'dry-run': 'a dry run',
  cli: 'the command line',
};

interface GattExplorerProps {
  link: BoardLink;
  log: readonly GattLogEntry[];
  names: Names;
  /** What the names and formats are kept for, in words (a product's name, or the bench). */
  scopeLabel: string;
  onClearLog: () => void;
}

export function GattExplorer({ link, log, names, scopeLabel, onClearLog }: GattExplorerProps) {
  const api = useApi();
  const action = useAction();
  const { connectionId } = link;
  const lost = link.state === 'dropped';
  const openedBy = OPENED_BY[link.user];

  return (
    <div
      className={lost ? 'ble-board ble-board-down' : 'ble-board'}
      data-connection-id={connectionId}
    >
      <Panel
        title={link.name ?? link.address}
        testId="gatt-explorer"
        actions={
          <>
            <span className="muted">
              {openedBy && <span className="badge">opened by {openedBy}</span>} MTU {link.mtu} ·{' '}
              <span className={lost ? 'bad' : 'good'} data-testid="gatt-connection-state">
                {lost ? 'disconnected' : 'connected'}
              </span>
            </span>
            <button
              type="button"
              disabled={action.busy}
              aria-label={lost ? 'Dismiss' : undefined}
              title={lost ? 'Take the board off the bench, its log with it' : undefined}
              onClick={() => void action.run(() => api.ble.disconnect({ connectionId }))}
            >
              {lost ? '× Dismiss' : 'Disconnect'}
            </button>
          </>
        }
      >
        {lost && (
          // Reconnect sits in the notice, not only in the title bar: where the page scrolled to
          // an error further down, the notice under the title is what is still in view. A card
          // its user disconnected stays too, until Reconnect or Dismiss (issue 45, point 7).
          <div
            className={link.endedByUser ? 'ended-box' : 'warning-box'}
            role="status"
            data-testid="link-dropped"
          >
            {link.endedByUser
              ? `Disconnected by you${link.droppedAt ? ` at ${formatClockTime(link.droppedAt)}` : ''}.`
              : `The link dropped${link.droppedReason ? `: ${link.droppedReason}` : ''}.`}{' '}
            Reconnect keeps this log and the values read; Dismiss takes the board off the bench.{' '}
            <button
              type="button"
              disabled={action.busy}
              onClick={() => void action.run(() => api.ble.reconnect({ connectionId }))}
            >
              {action.busy ? 'Reconnecting…' : 'Reconnect'}
            </button>
          </div>
        )}
        <ErrorNotice error={action.error} />
        <LinkCard
          connectionId={connectionId}
          board={link.name ?? link.address}
          address={link.address}
          link={link.info}
          lost={lost}
        />
        {link.services.some((s) => sameUuid(s.uuid, MCUMGR_SERVICE_UUID)) && (
          <FirmwarePanel connectionId={connectionId} lost={lost} />
        )}
        <p className="note small" data-testid="names-scope">
          Names and value formats are kept for {scopeLabel}.
        </p>
        <ErrorNotice error={names.error} />
        <div className="ble-gatt">
          <div className="ble-services">
            {link.services.map((service) => (
              <section
                key={service.uuid}
                className="ble-service"
                aria-label={`Service ${formatUuid(service.uuid)}`}
              >
                <h3>
                  <AttributeName
                    name={names.nameOf(service.uuid, ['service'])}
                    uuid={service.uuid}
                  />
                </h3>
                {service.characteristics.length === 0 && (
                  <p className="note small">No characteristics.</p>
                )}
                {service.characteristics.map((c) => (
                  <CharacteristicRow
                    key={c.uuid}
                    link={link}
                    serviceUuid={service.uuid}
                    uuid={c.uuid}
                    properties={c.properties}
                    names={names}
                    log={log}
                  />
                ))}
              </section>
            ))}
          </div>
          <GattLog entries={log} openedAt={link.openedAt} names={names} onClear={onClearLog} />
        </div>
      </Panel>
    </div>
  );
}

/** A name with its UUID beside it, or the UUID alone when nobody named it. */
function AttributeName({ name, uuid }: { name?: string; uuid: string }) {
  return (
    <span className="ble-attribute" data-testid="attribute-name">
      {name && <span className="ble-attribute-name">{name}</span>}
      <code className="mono muted">{formatUuid(uuid)}</code>
    </span>
  );
}

interface CharacteristicRowProps {
  link: BoardLink;
  serviceUuid: string;
  uuid: string;
  properties: readonly string[];
  names: Names;
  /** The connection's log: this row's value and plot come from its reads and notifications. */
  log: readonly GattLogEntry[];
}

function CharacteristicRow({
  link,
  serviceUuid,
  uuid,
  properties,
  names,
  log: notifications,
}: CharacteristicRowProps) {
  const api = useApi();
  const rename = useAction<unknown>();
  const [renaming, setRenaming] = useState<string>();
  const action = useAction<unknown>();
  /** The link (by when it was made) the last failure happened on. */
  const [failedOn, setFailedOn] = useState<number>();
  const { connectionId } = link;
  const disabled = link.state !== 'connected';
  const subscribed = link.subscriptions.includes(subscriptionKey(serviceUuid, uuid));
  // An error from before the link dropped or was made again says nothing of the link now.
  const stale = action.error !== undefined && (disabled || failedOn !== link.openedAt);
  const act = (call: () => Promise<unknown>) => {
    const on = link.openedAt;
    void action.run(call).then((ok) => !ok && setFailedOn(on));
  };
  const [typed, setTyped] = useState<BytesText>({ format: 'hex', text: '' });
  const [withoutResponse, setWithoutResponse] = useState(!properties.includes('write'));
  const target = { connectionId, serviceUuid, characteristicUuid: uuid };
  const name = names.nameOf(uuid, ['characteristic', 'descriptor']);
  // Controls are labelled by UUID, which stays put while the name is edited.
  const dashed = formatUuid(uuid);
  const shown = name ?? dashed;
  const format = names.formatOf(uuid);
  // The value beside the format is the board's latest word: a read or a notification, as the
  // link's log has it, so it outlives a reload and a reconnect.
  const value = useMemo(
    () =>
      notifications.findLast(
        (e) =>
          (e.kind === 'notify' || e.kind === 'read') &&
          e.characteristicUuid === uuid &&
          e.data !== undefined,
      )?.data,
    [notifications, uuid],
  );
  const decoded = value === undefined ? undefined : decodeValue(hexToBytes(value), format);
  const points = useMemo(() => {
    if (!isNumeric(format.type)) return [];
    const plotted: PlotPoint[] = [];
    for (const e of notifications) {
      if (e.kind !== 'notify' || e.data === undefined || e.characteristicUuid !== uuid) continue;
      const read = decodeValue(hexToBytes(e.data), format);
      if (read.ok && read.number !== undefined) plotted.push({ at: e.at, value: read.number });
    }
    return plotted.slice(-PLOT_POINTS);
  }, [notifications, uuid, format]);
  const canRead = properties.includes('read');
  const canWrite = properties.includes('write') || properties.includes('writeWithoutResponse');
  const canNotify = properties.includes('notify') || properties.includes('indicate');

  function write(event: FormEvent) {
    event.preventDefault();
    act(async () => {
      const data = toHex(typed.text, typed.format, 'data');
      return api.ble.write({ ...target, data, withoutResponse });
    });
  }

  return (
    <div className="ble-characteristic" data-testid="characteristic" data-uuid={uuid}>
      <div className="ble-characteristic-head">
        {renaming === undefined ? (
          <>
            <AttributeName name={name} uuid={uuid} />
            <button
              type="button"
              className="link"
              aria-label={`Rename ${dashed}`}
              onClick={() => setRenaming(name ?? '')}
            >
              Rename
            </button>
          </>
        ) : (
          <form
            className="inline-form"
            aria-label={`Rename ${dashed}`}
            onSubmit={(event) => {
              event.preventDefault();
              void rename
                .run(() => names.rename(uuid, renaming.trim()))
                .then((ok) => ok && setRenaming(undefined));
            }}
            onKeyDown={(event) => event.key === 'Escape' && setRenaming(undefined)}
          >
            <input
              aria-label={`Name for ${dashed}`}
              value={renaming}
              maxLength={60}
              placeholder="Empty: the board's or the SIG's name"
              autoFocus
              onChange={(event) => setRenaming(event.target.value)}
            />
            <button type="submit" disabled={rename.busy}>
              Save
            </button>
            <button type="button" className="link" onClick={() => setRenaming(undefined)}>
              Cancel
            </button>
          </form>
        )}
        {properties.map((p) => (
          <span key={p} className="badge">
            {p}
          </span>
        ))}
        <span className="spacer" />
        {canRead && (
          <button
            type="button"
            aria-label={`Read ${dashed}`}
            disabled={disabled || action.busy}
            onClick={() => act(() => api.ble.read(target))}
          >
            Read
          </button>
        )}
        {canNotify && (
          <button
            type="button"
            aria-pressed={subscribed}
            aria-label={`${subscribed ? 'Unsubscribe from' : 'Subscribe to'} ${dashed}`}
            disabled={disabled || action.busy}
            onClick={() =>
              act(() => (subscribed ? api.ble.unsubscribe(target) : api.ble.subscribe(target)))
            }
          >
            {subscribed ? 'Unsubscribe' : 'Subscribe'}
          </button>
        )}
      </div>
      <ErrorNotice error={rename.error} />
      <div className="ble-value">
        <ValueFormatPicker
          label={dashed}
          format={format}
          onChange={(next) => void names.setFormat(uuid, next).catch(() => undefined)}
        />
        {value !== undefined && decoded && (
          <span data-testid="read-value">
            <strong className={decoded.ok ? 'mono' : 'bad'} data-testid="decoded-value">
              {decoded.ok ? decoded.text : decoded.message}
            </strong>{' '}
            <BytesView hex={value} />
          </span>
        )}
      </div>
      {subscribed && isNumeric(format.type) && (
        <NotificationPlot points={points} label={shown} unit={format.unit} />
      )}
      {canWrite && (
        <form className="inline-form ble-write" onSubmit={write} aria-label={`Write to ${dashed}`}>
          <BytesInput
            label={`Value for ${dashed}`}
            className="grow"
            value={typed}
            onChange={setTyped}
            messages={messagesFor(action.error, 'data')}
          />
          {properties.includes('write') && properties.includes('writeWithoutResponse') && (
            <label className="ble-check">
              <input
                type="checkbox"
                checked={withoutResponse}
                onChange={(event) => setWithoutResponse(event.target.checked)}
              />
              Without response
            </label>
          )}
          <button type="submit" disabled={disabled || action.busy}>
            Write
          </button>
        </form>
      )}
      {stale ? (
        <div className="ble-stale" data-testid="stale-error">
          <span className="badge">stale</span>{' '}
          <span className="muted">
            from before the link {disabled ? 'dropped' : 'was made again'}:
          </span>
          <ErrorNotice error={action.error} shownFields={['data']} />
        </div>
      ) : (
        <ErrorNotice error={action.error} shownFields={['data']} />
      )}
    </div>
  );
}
