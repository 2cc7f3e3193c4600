// The emulator's webhook dispatcher: each channel may have a webhook URL; areas hand it an
// event envelope and it signs the body with the channel secret, POSTs it, and keeps the
// delivery (status, response, timing) so the admin API, the UI and history endpoints can show it.
import { postWithSignature } from '../webhooks/send';
import type { WebhookDelivery } from '../webhooks/schema';
import { SIGNATURE_HEADER, signBody } from '../webhooks/signature';
import type { Directory } from './channels';
import type { Clock } from './clock';
import { readMeta, sql, writeMeta, type Db } from './store';

const SIGNATURE_HEADER_META_KEY = 'webhooks.signatureHeader';

interface Row {
  id: number;
  channel_id: string;
  kind: string;
  url: string | null;
  body: string;
  signature: string;
  started_at: number;
  finished_at: number | null;
  status: WebhookDelivery['status'];
  response_status: number | null;
  error: string | null;
}

export class Webhooks {
  private readonly listeners = new Set<(delivery: WebhookDelivery) => void>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly directory: Directory,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS webhook_urls (
        channel_id TEXT PRIMARY KEY,
        url TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        url TEXT,
        body TEXT NOT NULL,
        signature TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        status TEXT NOT NULL,
        response_status INTEGER,
        error TEXT
      );
      CREATE INDEX IF NOT EXISTS webhook_deliveries_channel ON webhook_deliveries (channel_id, started_at);
    `);
  }

  /**
   * The header the signature travels in: `x-platform-signature` unless the admin API names
   * another, so an SDK that reads its own header name verifies deliveries as they come
   * (docs/decisions.md, "Webhooks (shared by every area that sends events)").
   */
  get signatureHeader(): string {
    return readMeta(this.db, SIGNATURE_HEADER_META_KEY) ?? SIGNATURE_HEADER;
  }

  set signatureHeader(name: string) {
    writeMeta(this.db, SIGNATURE_HEADER_META_KEY, name);
  }

  setUrl(channelId: string, url: string | null): void {
    if (url === null) sql(this.db, 'DELETE FROM webhook_urls WHERE channel_id = ?').run(channelId);
    else
      sql(
        this.db,
        `INSERT INTO webhook_urls (channel_id, url) VALUES (?, ?)
         ON CONFLICT(channel_id) DO UPDATE SET url = excluded.url`,
      ).run(channelId, url);
  }

  url(channelId: string): string | undefined {
    const row = sql(this.db, 'SELECT url FROM webhook_urls WHERE channel_id = ?').get(channelId) as
      { url: string } | undefined;
    return row?.url;
  }

  /**
   * Signs `envelope` with the channel's secret and POSTs it to the channel's webhook URL.
   * Resolves with the finished delivery; never throws (a failure is a FAILED delivery).
   */
  async deliver(channelId: string, kind: string, envelope: unknown): Promise<WebhookDelivery> {
    const channel = this.directory.channels().find((c) => c.channelId === channelId);
    const body = JSON.stringify(envelope);
    const signature = channel ? signBody(body, channel.channelSecret) : '';
    const url = this.url(channelId) ?? null;
    const { lastInsertRowid } = sql(
      this.db,
      `INSERT INTO webhook_deliveries (channel_id, kind, url, body, signature, started_at, status)
       VALUES (?, ?, ?, ?, ?, ?, 'PENDING')`,
    ).run(channelId, kind, url, body, signature, this.clock.now());
    const id = Number(lastInsertRowid);

    let outcome: { status: WebhookDelivery['status']; responseStatus?: number; error?: string };
    if (!channel) outcome = { status: 'FAILED', error: `no channel ${channelId}` };
    else if (!url) outcome = { status: 'FAILED', error: 'no webhook URL is set for the channel' };
    else
      outcome = await postWithSignature(url, body, signature, {
        userAgent: 'DeviceBench-Emulator',
        signatureHeader: this.signatureHeader,
      });

    sql(
      this.db,
      `UPDATE webhook_deliveries SET finished_at = ?, status = ?, response_status = ?, error = ?
       WHERE id = ?`,
    ).run(
      this.clock.now(),
      outcome.status,
      outcome.responseStatus ?? null,
      outcome.error ?? null,
      id,
    );
    const delivery = this.get(id) as WebhookDelivery;
    for (const listener of this.listeners) listener(delivery);
    return delivery;
  }

  get(id: number): WebhookDelivery | undefined {
    const row = sql(this.db, 'SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as
      Row | undefined;
    return row && toDelivery(row);
  }

  /** Newest first. */
  list(filter: { channelId?: string; kind?: string; limit?: number } = {}): WebhookDelivery[] {
    const rows = sql(
      this.db,
      `SELECT * FROM webhook_deliveries
       WHERE (@channelId IS NULL OR channel_id = @channelId) AND (@kind IS NULL OR kind = @kind)
       ORDER BY id DESC LIMIT @limit`,
    ).all({
      channelId: filter.channelId ?? null,
      kind: filter.kind ?? null,
      limit: filter.limit ?? 100,
    }) as Row[];
    return rows.map(toDelivery);
  }

  onDelivery(listener: (delivery: WebhookDelivery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function toDelivery(row: Row): WebhookDelivery {
  return {
    id: row.id,
    channelId: row.channel_id,
    kind: row.kind,
    url: row.url,
    body: row.body,
    signature: row.signature,
    startedAt: row.started_at,
    finishedAt: row.finished_at ?? undefined,
    status: row.status,
    responseStatus: row.response_status ?? undefined,
    error: row.error ?? undefined,
  };
}
