// The connection's log: every read, write, notification, subscription and error in order,
// its bytes as hex with the text (or base64) beside them, and the value in the characteristic's
// format, named, with a link to the explorer's picker. Newest at the bottom, as a terminal.
import { useEffect, useRef } from 'react';
import { TableHead } from '../../components/TableHead';
import { formatClockTime } from '../../lib/format';
import { shownUuid } from '../../lib/format';
import { hexToBytes } from '../../../core/bytes';
import { decodeValue, VALUE_TYPE_LABELS } from '../../../core/ble/values/value-format';
import { BytesView } from './BytesView';
import type { GattLogEntry } from './use-links';
import type { Names } from '../../lib/use-names';

/**
 * The value in the characteristic's format, the format named, and a link to the explorer's
 * picker, the one place a format is changed (docs/decisions.md, "The GATT log's formats").
 */
function Decoded({ names, uuid, hex }: { names: Names; uuid: string; hex: string }) {
  const format = names.formatOf(uuid);
  const dashed = shownUuid(uuid);
  const decoded = format.type === 'hex' ? undefined : decodeValue(hexToBytes(hex), format);
  const toPicker = () => {
    const picker = document.querySelector<HTMLSelectElement>(
      `select[aria-label="${CSS.escape(`Format of ${dashed}`)}"]`,
    );
    picker?.scrollIntoView({ block: 'nearest' });
    picker?.focus();
  };
  return (
    <div className="ble-log-decoded">
      {decoded && (
        <strong className={decoded.ok ? 'mono' : 'bad'} data-testid="log-decoded">
          {decoded.ok ? decoded.text : decoded.message}{' '}
        </strong>
      )}
      <span className="muted" data-testid="log-format">
        as {VALUE_TYPE_LABELS[format.type]}
      </span>{' '}
      <button
        type="button"
        className="link"
        aria-label={`Change the format of ${dashed}`}
        onClick={toPicker}
      >
        change
      </button>
    </div>
  );
}

export function GattLog({
  entries,
  openedAt,
  names,
  onClear,
}: {
  entries: readonly GattLogEntry[];
  /** When the current link was made: an error before it is stale. */
  openedAt: number;
  names: Names;
  onClear: () => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = scroller.current;
    if (box) box.scrollTop = box.scrollHeight;
  }, [entries.length]);

  return (
    <section className="ble-log" aria-label="GATT log">
      <header className="panel-header">
        <h3>Log</h3>
        <button type="button" className="link" onClick={onClear}>
          Clear log
        </button>
      </header>
      <div className="scroll ble-log-scroll" ref={scroller} tabIndex={0}>
        <table className="grid log" aria-label="GATT log entries">
          <TableHead columns={['Time', 'What', 'Data']} />
          <tbody>
            {entries.map((e) => (
              <tr
                key={e.seq}
                data-testid="gatt-log-entry"
                className={e.kind !== 'error' ? '' : e.at < openedAt ? 'stale' : 'bad'}
              >
                <td className="mono nowrap">{formatClockTime(e.at)}</td>
                <td>
                  <span className="ble-log-kind">{e.kind}</span>
                  {e.kind === 'error' && e.at < openedAt && (
                    <div className="muted" title="from before the link was made again">
                      stale
                    </div>
                  )}
                  {e.characteristicUuid !== undefined && (
                    <>
                      {names.nameOf(e.characteristicUuid, ['characteristic']) && (
                        <div className="ble-attribute-name" data-testid="log-name">
                          {names.nameOf(e.characteristicUuid, ['characteristic'])}
                        </div>
                      )}
                      <div className="mono ble-log-uuid">{shownUuid(e.characteristicUuid)}</div>
                    </>
                  )}
                </td>
                <td>
                  {e.data !== undefined && e.characteristicUuid !== undefined && (
                    <Decoded names={names} uuid={e.characteristicUuid} hex={e.data} />
                  )}
                  {e.data !== undefined && <BytesView hex={e.data} />}
                  {e.message && <div>{e.message}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
