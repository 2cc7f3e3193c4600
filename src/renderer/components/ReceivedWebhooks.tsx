// Webhooks the app's receiver took in: when, where, which events, and whether the signature
// verified; a row opens the exact body. Consoles pass `filter` to show only their events.
import { useState } from 'react';
import type { ReceivedWebhook } from '../../core/webhooks/schema';
import { formatClockTime } from '../lib/format';
import { TableHead } from './TableHead';
import { maskBody, maskJson } from '../../core/platform/secret-mask';

export function ReceivedWebhooks({
  received,
  filter,
  emptyText = 'Nothing received yet.',
}: {
  received: ReceivedWebhook[];
  filter?: (webhook: ReceivedWebhook) => boolean;
  emptyText?: string;
}) {
  const [openId, setOpenId] = useState<number | undefined>(undefined);
  const rows = filter ? received.filter(filter) : received;
  if (rows.length === 0) return <p className="note empty">{emptyText}</p>;
  const open = rows.find((w) => w.id === openId);
  return (
    <>
      <table className="grid" aria-label="Received webhooks">
        <TableHead columns={['Time', 'Path', 'Events', 'Signature', 'Answered']} rowActions />
        <tbody>
          {rows.map((w) => (
            <tr key={w.id} aria-selected={w.id === openId}>
              <td className="mono">{formatClockTime(w.receivedAt)}</td>
              <td className="mono">{w.path}</td>
              <td>{w.eventTypes.length ? w.eventTypes.join(', ') : <em>none</em>}</td>
              <td>
                <span className="badge good">Signature valid</span>
                <span className="muted"> channel {w.channelId}</span>
              </td>
              <td>{w.status}</td>
              <td>
                <button
                  type="button"
                  className="link"
                  aria-expanded={w.id === openId}
                  onClick={() => setOpenId(w.id === openId ? undefined : w.id)}
                >
                  {w.id === openId ? 'Hide body' : 'Body'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && (
        <figure className="webhook-body">
          <figcaption>
            Body of webhook {open.id}
            {open.signatureHeader && (
              <>
                {' '}
                · signature <code className="mono">{open.signatureHeader}</code>
              </>
            )}
          </figcaption>
          <pre className="mono" tabIndex={0}>
            {/* Credentials in a body (a reply token…) are masked as every request's are. */}
            {open.json === undefined
              ? maskBody(open.body, undefined)
              : JSON.stringify(maskJson(open.json), null, 2)}
          </pre>
        </figure>
      )}
    </>
  );
}
