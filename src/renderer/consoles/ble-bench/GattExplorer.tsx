// One connected board's GATT table: every service and characteristic with its properties, and
// read, write (typed as hex, UTF-8 or base64), subscribe and unsubscribe on each, beside the
// log of everything that happened on the connection.
import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import type { connectionSchema } from '../../../core/app/contracts/ble';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { formatUuid } from '../../../core/ble/port';
import { BytesInput, type BytesText } from '../../components/BytesInput';
import { toHex } from './bytes';
import { BytesView } from './BytesView';
import { GattLog } from './GattLog';
import type { GattLogEntry } from './use-gatt-log';

export type Connection = z.infer<typeof connectionSchema>;

export interface GattExplorerProps {
  connection: Connection;
  boardName: string;
  log: readonly GattLogEntry[];
  onClosed: () => void;
  onClearLog: () => void;
}

export function GattExplorer({
  connection,
  boardName,
  log,
  onClosed,
  onClearLog,
}: GattExplorerProps) {
  const api = useApi();
  const disconnect = useAction();
  const lost = log.some((e) => e.kind === 'disconnect');

  return (
    <Panel
      title={`GATT explorer — ${boardName}`}
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
      <div className="ble-gatt">
        <div className="ble-services">
          {connection.services.map((service) => (
            <section
              key={service.uuid}
              className="ble-service"
              aria-label={`Service ${formatUuid(service.uuid)}`}
            >
              <h3 className="mono">{formatUuid(service.uuid)}</h3>
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
                />
              ))}
            </section>
          ))}
        </div>
        <GattLog entries={log} onClear={onClearLog} />
      </div>
    </Panel>
  );
}

interface CharacteristicRowProps {
  connectionId: string;
  serviceUuid: string;
  uuid: string;
  properties: readonly string[];
  disabled: boolean;
}

function CharacteristicRow({
  connectionId,
  serviceUuid,
  uuid,
  properties,
  disabled,
}: CharacteristicRowProps) {
  const api = useApi();
  const action = useAction<unknown>();
  const [value, setValue] = useState<string>();
  const [subscribed, setSubscribed] = useState(false);
  const [typed, setTyped] = useState<BytesText>({ format: 'hex', text: '' });
  const [withoutResponse, setWithoutResponse] = useState(!properties.includes('write'));
  const target = { connectionId, serviceUuid, characteristicUuid: uuid };
  const shown = formatUuid(uuid);
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
        <code className="mono">{shown}</code>
        {properties.map((p) => (
          <span key={p} className="badge">
            {p}
          </span>
        ))}
        <span className="spacer" />
        {canRead && (
          <button
            type="button"
            aria-label={`Read ${shown}`}
            disabled={disabled || action.busy}
            onClick={() =>
              void action.run(async () => {
                const read = await api.ble.read(target);
                setValue(read.data);
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
            aria-label={`${subscribed ? 'Unsubscribe from' : 'Subscribe to'} ${shown}`}
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
      {value !== undefined && (
        <div className="ble-value" data-testid="read-value">
          <span className="muted">Value</span> <BytesView hex={value} />
        </div>
      )}
      {canWrite && (
        <form className="inline-form ble-write" onSubmit={write} aria-label={`Write to ${shown}`}>
          <BytesInput
            label={`Value for ${shown}`}
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
