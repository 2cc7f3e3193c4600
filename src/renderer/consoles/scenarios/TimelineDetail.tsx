// The detail of what is chosen on a dry run's timeline: when it started and how long it took,
// and what its kind carries (bytes in hex, base64 and UTF-8; UUIDs; the link's key; the result).
import type { ReactNode } from 'react';
import { bytesAsText, parseBase64 } from '../../../core/bytes';
import { shownUuid } from '../../lib/format';
import { keyLabel, methodLabel } from '../../lib/link-security-words';
import { Base64Bytes } from './Base64Bytes';
import { OutcomeBadge } from './ResultEvents';
import {
  formatInstant,
  formatMs,
  formatOffset,
  hasLength,
  itemTitle,
  type TimelineItem,
} from './timeline-model';

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

function BytesFacts({ data, hex }: { data: string; hex: string | undefined }) {
  const parsed = parseBase64(data);
  const text = parsed.ok ? bytesAsText(parsed.bytes) : undefined;
  return (
    <>
      <Fact term="Bytes (hex)">
        {data === '' ? (
          <em className="muted">empty</em>
        ) : hex === undefined ? (
          <span className="bad">not base64</span>
        ) : (
          <code>{hex}</code>
        )}
      </Fact>
      <Fact term="Bytes (base64)">
        <code>{data}</code>
      </Fact>
      {text !== undefined && (
        <Fact term="Bytes (UTF-8)">
          <code>“{text}”</code>
        </Fact>
      )}
    </>
  );
}

export function TimelineDetail({
  item,
  origin,
  onClose,
}: {
  item: TimelineItem;
  origin: number;
  onClose: () => void;
}) {
  return (
    <section
      className="tl-detail"
      data-testid="timeline-detail"
      aria-label="Selected on the timeline"
    >
      <header className="panel-header">
        <h3>{itemTitle(item)}</h3>
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      </header>
      <dl className="facts">
        <Fact term="Start">
          <span className="mono">{formatOffset(item.start, origin)}</span>{' '}
          <span className="muted">{formatInstant(item.start)}</span>
        </Fact>
        {hasLength(item) && (
          <Fact term="Duration">
            {formatMs(item.end - item.start)}
            {item.open && ' so far'}
          </Fact>
        )}
        <KindFacts item={item} origin={origin} />
      </dl>
      {item.kind === 'run' && item.result && (
        <figure className="tl-json">
          <figcaption>Result record</figcaption>
          <pre>{JSON.stringify(item.result, null, 2)}</pre>
        </figure>
      )}
    </section>
  );
}

function Uuids({ service, characteristic }: { service?: string; characteristic?: string }) {
  return (
    <>
      {service !== undefined && (
        <Fact term="Service UUID">
          <code>{shownUuid(service)}</code>
        </Fact>
      )}
      {characteristic !== undefined && (
        <Fact term="Characteristic UUID">
          <code>{shownUuid(characteristic)}</code>
        </Fact>
      )}
    </>
  );
}

function KindFacts({ item, origin }: { item: TimelineItem; origin: number }) {
  switch (item.kind) {
    case 'action':
      return (
        <>
          <Fact term="Type">{item.type}</Fact>
          <Fact term="Step">
            run {item.run}, action {item.action + 1}
          </Fact>
          <Uuids service={item.serviceUuid} characteristic={item.characteristicUuid} />
          {item.sleepMillis !== undefined && <Fact term="Sleep">{item.sleepMillis} ms</Fact>}
          {item.data !== undefined && <BytesFacts data={item.data} hex={item.hex} />}
          {item.error !== undefined && (
            <Fact term="Error">
              <span className="bad">{item.error}</span>
            </Fact>
          )}
          {item.writeConfirmed === false && (
            <Fact term="Board's answer">
              <span className="warn" data-testid="write-unconfirmed">
                not confirmed by the board (native adapter)
              </span>
            </Fact>
          )}
        </>
      );
    case 'run':
      return (
        <>
          <Fact term="Scenario">
            #{item.scenario} <code>{item.scenarioId}</code>
          </Fact>
          <Fact term="Trigger">{item.trigger}</Fact>
          <Fact term="Result">
            <OutcomeBadge outcome={item.outcome} />
          </Fact>
          {item.result?.bleNotificationPayload !== undefined && (
            <Fact term="Notification payload">
              <Base64Bytes data={item.result.bleNotificationPayload} />
            </Fact>
          )}
          {item.result?.errorReason !== undefined && (
            <Fact term="Error reason">
              <span className="bad">{item.result.errorReason}</span>
            </Fact>
          )}
        </>
      );
    case 'connecting':
      return <Fact term="Cycle">{item.cycle}</Fact>;
    case 'connection':
      return (
        <>
          <Fact term="MTU">{item.mtu}</Fact>
          {item.endedBy !== undefined && <Fact term="Ended by">{item.endedBy}</Fact>}
          {item.reason && <Fact term="Reason">{item.reason}</Fact>}
        </>
      );
    case 'connect-failed':
    case 'pairing-failed':
      return (
        <Fact term="Error">
          <span className="bad">{item.error}</span>
        </Fact>
      );
    case 'disconnected':
      return (
        <>
          <Fact term="By">{item.by}</Fact>
          {item.reason && <Fact term="Reason">{item.reason}</Fact>}
        </>
      );
    case 'waiting':
      return (
        <>
          <Fact term="Why">{item.why}</Fact>
          <Fact term="Due">{formatOffset(item.until, origin)}</Fact>
        </>
      );
    case 'notification':
      return (
        <>
          <Uuids service={item.serviceUuid} characteristic={item.characteristicUuid} />
          <BytesFacts data={item.data} hex={item.hex} />
        </>
      );
    case 'error':
      return (
        <Fact term="Message">
          <span className="bad">{item.message}</span>
        </Fact>
      );
    case 'paired':
    case 'encrypted':
      return (
        <>
          <Fact term="Pairing">{methodLabel(item.security)}</Fact>
          <Fact term="Key">{keyLabel(item.security)}</Fact>
          <Fact term="Bond">{item.security.bonded ? 'Bonded' : 'Not bonded'}</Fact>
        </>
      );
    case 'stopped':
      return <Fact term="Reason">{item.reason}</Fact>;
    case 'dropped':
      return (
        <Fact term="Scenario">
          #{item.scenario} {item.scenarioId && <code>{item.scenarioId}</code>}
        </Fact>
      );
  }
}
