// One scanned board's advertisement taken apart: flags bit by bit, local name, service UUIDs
// with their names, service data, manufacturer data with the company's name, TX power, and the
// raw bytes with each AD structure labelled (src/core/ble/advertising/ad-structures.ts). Where
// the adapter gives no raw bytes (noble without an HCI tap), what noble decoded is shown.
import type { ScannedDevice } from '../../../core/usecases/bench/bench-schema';
import { hexToBytes } from '../../../core/bytes';
import {
  manufacturerData,
  parseAdStructures,
  type AdField,
  type AdStructure,
} from '../../../core/ble/advertising/ad-structures';
import { resolveName, type UuidNames } from '../../../core/ble/names/resolver';
import { rssiText } from '../../../core/ble/rssi';
import { Panel } from '../../components/Panel';
import { shownUuid } from '../../lib/format';
import { spacedHex } from './bytes';
import { BytesView } from './BytesView';

function Uuid({ uuid, labels }: { uuid: string; labels: UuidNames }) {
  const name = resolveName(uuid, { user: labels, kinds: ['service'] })?.name;
  return (
    <li>
      {name && <span className="ble-attribute-name">{name} </span>}
      <code className="mono muted">{shownUuid(uuid)}</code>
    </li>
  );
}

function FieldView({ field, labels }: { field: AdField; labels: UuidNames }) {
  switch (field.kind) {
    case 'flags':
      return (
        <>
          <code className="mono">0x{field.value.toString(16).padStart(2, '0')}</code>
          <ul className="ble-ad-list">
            {field.set.map((bit) => (
              <li key={bit}>{bit}</li>
            ))}
          </ul>
        </>
      );
    case 'localName':
      return (
        <>
          “{field.name}”{' '}
          <span className="muted">({field.complete ? 'complete' : 'shortened'})</span>
        </>
      );
    case 'serviceUuids':
      return (
        <ul className="ble-ad-list">
          {field.uuids.map((u) => (
            <Uuid key={u} uuid={u} labels={labels} />
          ))}
        </ul>
      );
    case 'serviceData':
      return (
        <>
          <ul className="ble-ad-list">
            <Uuid uuid={field.uuid} labels={labels} />
          </ul>
          <BytesView hex={field.data} />
        </>
      );
    case 'manufacturerData':
      return (
        <>
          <span data-testid="ad-company">
            {field.company ?? 'Unknown company'}{' '}
            <code className="mono muted">0x{field.companyId.toString(16).padStart(4, '0')}</code>
          </span>{' '}
          <BytesView hex={field.data} />
        </>
      );
    case 'txPower':
      return <>{field.dbm} dBm</>;
    case 'malformed':
      return <span className="bad">Malformed: {field.message}</span>;
    case 'other':
      return <span className="muted">not decoded</span>;
  }
}

function Structures({
  title,
  structures,
  labels,
}: {
  title: string;
  structures: AdStructure[];
  labels: UuidNames;
}) {
  return (
    <table className="grid ble-ad" aria-label={title}>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">AD structure</th>
          <th scope="col">Value</th>
          <th scope="col">Bytes</th>
        </tr>
      </thead>
      <tbody>
        {structures.map((s) => (
          <tr key={s.offset} data-testid="ad-structure" data-type={s.type}>
            <th scope="row">
              {s.typeName}{' '}
              <span className="muted mono">0x{s.type.toString(16).padStart(2, '0')}</span>
            </th>
            <td>
              <FieldView field={s.field} labels={labels} />
            </td>
            <td className="mono ble-ad-bytes">{spacedHex(s.hex)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AdvertisementInspector({
  device,
  labels,
  onClose,
}: {
  device: ScannedDevice;
  /** Names of service UUIDs worth naming on the bench (trial products, profiles). */
  labels: UuidNames;
  onClose: () => void;
}) {
  const packets = [
    { title: 'Advertising data', hex: device.advertisingData },
    { title: 'Scan response', hex: device.scanResponseData },
  ].filter((p): p is { title: string; hex: string } => p.hex !== undefined);
  return (
    <Panel
      title={`Advertisement — ${device.localName ?? device.address}`}
      testId="ad-inspector"
      actions={
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      }
    >
      <p className="muted">
        <span className="mono">{device.address}</span> · {rssiText(device.rssi)} ·{' '}
        {device.connectable ? 'connectable' : 'not connectable'}
      </p>
      {packets.length ? (
        packets.map((p) => (
          <div key={p.title}>
            <Structures
              title={p.title}
              structures={parseAdStructures(hexToBytes(p.hex))}
              labels={labels}
            />
            <p className="small">
              Raw ({p.hex.length / 2} bytes):{' '}
              <code className="mono" data-testid="ad-raw">
                {spacedHex(p.hex)}
              </code>
            </p>
          </div>
        ))
      ) : (
        <dl className="ble-ad-fields">
          <dt>Raw bytes</dt>
          <dd className="muted">This adapter does not pass the raw advertising data on.</dd>
          <dt>Local name</dt>
          <dd>{device.localName ?? '—'}</dd>
          <dt>Service UUIDs</dt>
          <dd>
            <ul className="ble-ad-list">
              {device.serviceUuids.map((u) => (
                <Uuid key={u} uuid={u} labels={labels} />
              ))}
            </ul>
          </dd>
          <dt>Manufacturer data</dt>
          <dd>
            {device.manufacturerData === undefined ? (
              '—'
            ) : (
              <FieldView
                field={manufacturerData(hexToBytes(device.manufacturerData))}
                labels={labels}
              />
            )}
          </dd>
          <dt>TX power</dt>
          <dd>{device.txPowerLevel === undefined ? '—' : `${device.txPowerLevel} dBm`}</dd>
        </dl>
      )}
    </Panel>
  );
}
