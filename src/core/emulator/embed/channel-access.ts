// Who is calling a mini-app endpoint and what their channel may do: the emulator's per-channel
// settings (mini app, BLE, service messages and in-app purchase permission) and the channel access
// tokens of each kind (docs/platform-api.md#conventions), shared by the embed, service-messages and
// iap areas.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf, refuseChannelToken } from '../bearer';
import type { Channel, Directory } from '../channels';
import type { Clock } from '../clock';
import { sql, type Db } from '../store';
import type { ChannelSettings, ChannelToken, ChannelTokenKind } from '../../platform/embed/schema';

/** Lifetimes of issued channel tokens (the messaging API's: 15 minutes, 30 days). */
const STATELESS_TTL_MS = 15 * 60 * 1000;
const SHORT_LIVED_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const DEFAULT_SETTINGS = { miniApp: false, ble: false, serviceMessages: true, inAppPurchase: true };

interface SettingsRow {
  channel_id: string;
  mini_app: number;
  ble: number;
  service_messages: number;
  in_app_purchase: number;
}
interface TokenRow {
  token: string;
  channel_id: string;
  kind: ChannelTokenKind;
  issued_at: number;
  expires_at: number | null;
}

export interface Caller {
  channel: Channel;
  /** The directory's own token counts as long-lived: it never expires. */
  kind: ChannelTokenKind;
}

export class ChannelAccess {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly directory: Directory,
  ) {}

  /** Idempotent; every area using it calls it from its own migrate. */
  static migrate(db: Db): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS embed_channel_settings (
        channel_id TEXT PRIMARY KEY,
        mini_app INTEGER NOT NULL,
        ble INTEGER NOT NULL,
        service_messages INTEGER NOT NULL,
        in_app_purchase INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS embed_channel_tokens (
        token TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        expires_at INTEGER
      );
    `);
  }

  channel(channelId: string): Channel | undefined {
    return this.directory.channels().find((c) => c.channelId === channelId);
  }

  settings(channelId: string): ChannelSettings {
    const row = sql(this.db, 'SELECT * FROM embed_channel_settings WHERE channel_id = ?').get(
      channelId,
    ) as SettingsRow | undefined;
    if (!row) return { channelId, ...DEFAULT_SETTINGS };
    return {
      channelId,
      miniApp: row.mini_app === 1,
      ble: row.ble === 1,
      serviceMessages: row.service_messages === 1,
      inAppPurchase: row.in_app_purchase === 1,
    };
  }

  updateSettings(channelId: string, changes: Partial<Omit<ChannelSettings, 'channelId'>>) {
    const next = { ...this.settings(channelId), ...changes };
    sql(
      this.db,
      `INSERT OR REPLACE INTO embed_channel_settings
         (channel_id, mini_app, ble, service_messages, in_app_purchase) VALUES (?, ?, ?, ?, ?)`,
    ).run(
      channelId,
      Number(next.miniApp),
      Number(next.ble),
      Number(next.serviceMessages),
      Number(next.inAppPurchase),
    );
    return next;
  }

  issueToken(channelId: string, kind: ChannelTokenKind, expiresInSeconds?: number): ChannelToken {
    const issuedAt = this.clock.now();
    const ttl =
      kind === 'stateless'
        ? STATELESS_TTL_MS
        : kind === 'short-lived'
          ? SHORT_LIVED_TTL_MS
          : kind === 'user-expiry'
            ? (expiresInSeconds ?? 86_400) * 1000
            : undefined;
    const token: ChannelToken = {
      accessToken: randomBytes(32).toString('base64url'),
      channelId,
      kind,
      issuedAt,
      expiresAt: ttl === undefined ? null : issuedAt + ttl,
    };
    sql(
      this.db,
      'INSERT INTO embed_channel_tokens (token, channel_id, kind, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)',
    ).run(token.accessToken, channelId, kind, issuedAt, token.expiresAt);
    return token;
  }

  /** The channel a Bearer token belongs to, with the token's kind, if the token is valid now. */
  resolve(token: string): Caller | undefined {
    const direct = this.directory.channelByToken(token);
    if (direct) return { channel: direct, kind: 'long-lived' };
    const row = sql(this.db, 'SELECT * FROM embed_channel_tokens WHERE token = ?').get(token) as
      TokenRow | undefined;
    if (!row || (row.expires_at !== null && this.clock.now() >= row.expires_at)) return undefined;
    const channel = this.channel(row.channel_id);
    return channel && { channel, kind: row.kind };
  }

  /**
   * The calling channel of a route that opted out of the server's channel auth (so issued
   * tokens count too), or undefined after the 401.
   */
  authenticate(request: FastifyRequest, reply: FastifyReply): Caller | undefined {
    const token = bearerTokenOf(request);
    const caller = token ? this.resolve(token) : undefined;
    if (caller) {
      request.channel = caller.channel;
      return caller;
    }
    refuseChannelToken(reply, token !== undefined);
    return undefined;
  }
}
