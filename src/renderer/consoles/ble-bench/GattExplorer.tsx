// One connected board's GATT table: every service and characteristic with its name, UUID and
// properties, and read, write (typed as hex, UTF-8 or base64), subscribe and unsubscribe on
// each, beside the log of everything that happened on the connection. Each characteristic can
// be renamed and given a value format, kept per product; numeric notifications are plotted.
import { useMemo, useState, type FormEvent } from 'react';
import type { GattConnection } from '../../../core/app/contracts/ble';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { formatUuid } from '../../../core/ble/port';
import { BytesInput, type BytesText } from '../../components/BytesInput';
import { hexToBytes } from '../../../core/bytes';
import { decodeValue, isNumeric } from '../../../core/ble/values/value-format';
import { toHex } from './bytes';
import { BytesView } from './BytesView';
import { GattLog } from './GattLog';
import { NotificationPlot, type PlotPoint } from './NotificationPlot';
import { ValueFormatPicker } from './ValueFormatPicker';
import { LinkCard } from './LinkCard';
import type { LinkInfo } from '../../../core/ble/link-parameters';
import type { GattLogEntry } from './use-gatt-log';
import type { Names } from '../../lib/use-names';

/** Notifications kept on a plot. */
const PLOT_POINTS = 300;

export type Connection = GattConnection;

interface GattExplorerProps {
  connection: Connection;
  boardName: string;
  address: string;
  /** The link as the controller last reported it. */
  link: LinkInfo | undefined;
  log: readonly GattLogEntry[];
  names: Names;
  /** What the names and formats are kept for, in words (a product's name, or the bench). */
  scopeLabel: string;
  onClosed: () => void;
  /** The MTU the link asked for, when a reconnect chose one. */
  askedMtu?: number;
  onReconnected: (connection: Connection, askedMtu: number) => void;
  onClearLog: () => void;
}

export function GattExplorer({
  connection,
  boardName,
  address,
  link,
  log,
  names,
  scopeLabel,
  onClosed,
  askedMtu,
  onReconnected,
  onClearLog,
}: GattExplorerProps) {
  const api = useApi();
  const disconnect = useAction();
  const lost = log.some((e) => e.kind === 'disconnect');

  return (
    <div className="ble-board" data-connection-id={connection.connectionId}>
      <Panel
        title={boardName}
        testId="gatt-explorer"
        actions={
          <>
            <span className="muted">
              MTU {connection.mtu} ·{' '}
              <span className={lost ? 'bad' : 'good'} data-testid="gatt-connection-state">
                {lost ? 'disconnected' : 'connected'}
              </span>
            </span>
            {lost ? (
              <button type="button" onClick={onClosed}>
                Close
              </button>
            ) : (
              <button
                type="button"
                disabled={disconnect.busy}
                onClick={() =>
                  void disconnect
                    .run(() => api.ble.disconnect({ connectionId: connection.connectionId }))
                    .then((ok) => ok && onClosed())
                }
              >
                Disconnect
              </button>
            )}
          </>
        }
      >
        <ErrorNotice error={disconnect.error} />
        <LinkCard
          connectionId={connection.connectionId}
          address={address}
          link={link}
          lost={lost}
          askedMtu={askedMtu}
          onReconnected={onReconnected}
        />
        <p className="note small" data-testid="names-scope">
          Names and value formats are kept for {scopeLabel}.
        </p>
        <ErrorNotice error={names.error} />
        <div className="ble-gatt">
          <div className="ble-services">
            {connection.services.map((service) => (
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
                    connectionId={connection.connectionId}
                    serviceUuid={service.uuid}
                    uuid={c.uuid}
                    properties={c.properties}
                    disabled={lost}
                    names={names}
                    notifications={log}
                  />
                ))}
              </section>
            ))}
          </div>
          <GattLog entries={log} names={names} onClear={onClearLog} />
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
  connectionId: string;
  serviceUuid: string;
  uuid: string;
  properties: readonly string[];
  disabled: boolean;
  names: Names;
  /** The connection's log; this row plots its own notifications from it. */
  notifications: readonly GattLogEntry[];
}

function CharacteristicRow({
  connectionId,
  serviceUuid,
  uuid,
  properties,
  disabled,
  names,
  notifications,
}: CharacteristicRowProps) {
  const api = useApi();
  const rename = useAction<unknown>();
  const [renaming, setRenaming] = useState<string>();
  const action = useAction<unknown>();
  const [readValue, setReadValue] = useState<{ data: string; at: number }>();
  const [subscribed, setSubscribed] = useState(false);
  const [typed, setTyped] = useState<BytesText>({ format: 'hex', text: '' });
  const [withoutResponse, setWithoutResponse] = useState(!properties.includes('write'));
  const target = { connectionId, serviceUuid, characteristicUuid: uuid };
  const name = names.nameOf(uuid, ['characteristic', 'descriptor']);
  // Controls are labelled by UUID, which stays put while the name is edited.
  const dashed = formatUuid(uuid);
  const shown = name ?? dashed;
  const format = names.formatOf(uuid);
  // The value beside the format is the board's latest word: a read, or a notification after it.
  const lastNotified = useMemo(
    () => notifications.findLast((e) => e.kind === 'notify' && e.characteristicUuid === uuid),
    [notifications, uuid],
  );
  const value =
    lastNotified?.data !== undefined && lastNotified.at >= (readValue?.at ?? 0)
      ? lastNotified.data
      : readValue?.data;
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
    void action.run(async () => {
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
            onClick={() =>
              void action.run(async () => {
                const read = await api.ble.read(target);
                setReadValue({ data: read.data, at: Date.now() });
                return read;
              })
            }
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
              void action.run(async () => {
                if (subscribed) await api.ble.unsubscribe(target);
                else await api.ble.subscribe(target);
                setSubscribed(!subscribed);
                return undefined;
              })
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
      <ErrorNotice error={action.error} shownFields={['data']} />
    </div>
  );
}
