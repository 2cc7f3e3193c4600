// The login emulator's own tables: channel app types and linked official accounts, profile
// extras, friendships, authorization codes and refresh tokens. Access tokens themselves are
// the shared user tokens (ctx.userTokens), so every other area accepts what login issues.
import { randomBytes } from 'node:crypto';
import type { Channel, Directory } from '../channels';
import { sql, type Db } from '../store';
import type {
  ApiVersion,
  AppType,
  ChannelSettings,
  FriendshipState,
  MintedCode,
  ProfileExtras,
} from '../../platform/login/schema';

export type RefreshState = 'valid' | 'expired' | 'revoked' | 'replaced';

export interface RefreshToken {
  token: string;
  version: ApiVersion;
  channelId: string;
  userId: string;
  scopes: string[];
  /** The access token this refresh token last produced. */
  accessToken: string;
  expiresAt: number;
  revokedAt?: number;
  /** v2.0 rotates: a used refresh token is replaced by the new one. */
  replacedAt?: number;
}

interface RefreshRow {
  token: string;
  version: ApiVersion;
  channel_id: string;
  user_id: string;
  scopes: string;
  access_token: string;
  expires_at: number;
  revoked_at: number | null;
  replaced_at: number | null;
}

interface CodeRow {
  data: string;
  used_at: number | null;
}

export function migrateLogin(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS login_channels (
      channel_id TEXT PRIMARY KEY,
      app_type TEXT NOT NULL,
      linked_account TEXT
    );
    CREATE TABLE IF NOT EXISTS login_profiles (
      user_id TEXT PRIMARY KEY,
      picture_url TEXT,
      status_message TEXT,
      email TEXT
    );
    CREATE TABLE IF NOT EXISTS login_friendships (
      channel_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      friend INTEGER NOT NULL,
      blocked INTEGER NOT NULL,
      PRIMARY KEY (channel_id, user_id)
    );
    CREATE TABLE IF NOT EXISTS login_codes (
      code TEXT PRIMARY KEY,
      data TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS login_refresh_tokens (
      token TEXT PRIMARY KEY,
      version TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      user_id TEXT NOT NULL,
      scopes TEXT NOT NULL,
      access_token TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      revoked_at INTEGER,
      replaced_at INTEGER
    );
    CREATE INDEX IF NOT EXISTS login_refresh_by_access ON login_refresh_tokens (access_token);
    CREATE INDEX IF NOT EXISTS login_refresh_by_user ON login_refresh_tokens (channel_id, user_id);
  `);
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

export class LoginState {
  constructor(
    private readonly db: Db,
    private readonly directory: Directory,
    private readonly now: () => number,
  ) {}

  channel(channelId: string): Channel | undefined {
    return this.directory.channels().find((c) => c.channelId === channelId);
  }

  /** A channel nobody configured is a Web-app-only channel with no linked official account. */
  settings(channel: Channel): ChannelSettings {
    const row = sql(this.db, 'SELECT * FROM login_channels WHERE channel_id = ?').get(
      channel.channelId,
    ) as { app_type: AppType; linked_account: string | null } | undefined;
    return {
      channelId: channel.channelId,
      name: channel.name,
      appType: row?.app_type ?? 'web',
      linkedAccount: row?.linked_account ?? null,
    };
  }

  saveSettings(settings: ChannelSettings): void {
    sql(
      this.db,
      `INSERT INTO login_channels (channel_id, app_type, linked_account) VALUES (?, ?, ?)
       ON CONFLICT(channel_id) DO UPDATE SET app_type = excluded.app_type,
         linked_account = excluded.linked_account`,
    ).run(settings.channelId, settings.appType, settings.linkedAccount);
  }

  profile(userId: string): ProfileExtras | undefined {
    const user = this.directory.user(userId);
    if (!user) return undefined;
    const row = sql(this.db, 'SELECT * FROM login_profiles WHERE user_id = ?').get(userId) as
      | { picture_url: string | null; status_message: string | null; email: string | null }
      | undefined;
    return {
      userId,
      displayName: user.displayName,
      pictureUrl: row?.picture_url ?? null,
      statusMessage: row?.status_message ?? null,
      email: row?.email ?? null,
    };
  }

  saveProfile(extras: ProfileExtras): void {
    sql(
      this.db,
      `INSERT INTO login_profiles (user_id, picture_url, status_message, email) VALUES (?, ?, ?, ?)
       ON CONFLICT(user_id) DO UPDATE SET picture_url = excluded.picture_url,
         status_message = excluded.status_message, email = excluded.email`,
    ).run(extras.userId, extras.pictureUrl, extras.statusMessage, extras.email);
  }

  friendship(channelId: string, userId: string): FriendshipState {
    const row = sql(
      this.db,
      'SELECT friend, blocked FROM login_friendships WHERE channel_id = ? AND user_id = ?',
    ).get(channelId, userId) as { friend: number; blocked: number } | undefined;
    return { channelId, userId, friend: row?.friend === 1, blocked: row?.blocked === 1 };
  }

  saveFriendship(state: FriendshipState): void {
    sql(
      this.db,
      `INSERT INTO login_friendships (channel_id, user_id, friend, blocked) VALUES (?, ?, ?, ?)
       ON CONFLICT(channel_id, user_id) DO UPDATE SET friend = excluded.friend,
         blocked = excluded.blocked`,
    ).run(state.channelId, state.userId, state.friend ? 1 : 0, state.blocked ? 1 : 0);
  }

  saveCode(code: MintedCode): void {
    sql(this.db, 'INSERT INTO login_codes (code, data, expires_at) VALUES (?, ?, ?)').run(
      code.code,
      JSON.stringify(code),
      code.expiresAt,
    );
  }

  code(code: string): { code: MintedCode; usedAt?: number } | undefined {
    const row = sql(this.db, 'SELECT data, used_at FROM login_codes WHERE code = ?').get(code) as
      CodeRow | undefined;
    return row && { code: JSON.parse(row.data) as MintedCode, usedAt: row.used_at ?? undefined };
  }

  useCode(code: string): void {
    sql(this.db, 'UPDATE login_codes SET used_at = ? WHERE code = ?').run(this.now(), code);
  }

  saveRefresh(token: RefreshToken): void {
    sql(
      this.db,
      `INSERT INTO login_refresh_tokens
         (token, version, channel_id, user_id, scopes, access_token, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      token.token,
      token.version,
      token.channelId,
      token.userId,
      token.scopes.join(' '),
      token.accessToken,
      token.expiresAt,
    );
  }

  refresh(token: string): RefreshToken | undefined {
    const row = sql(this.db, 'SELECT * FROM login_refresh_tokens WHERE token = ?').get(token) as
      RefreshRow | undefined;
    return row && toRefresh(row);
  }

  refreshFor(accessToken: string): RefreshToken | undefined {
    const row = sql(this.db, 'SELECT * FROM login_refresh_tokens WHERE access_token = ?').get(
      accessToken,
    ) as RefreshRow | undefined;
    return row && toRefresh(row);
  }

  refreshState(token: RefreshToken): RefreshState {
    if (token.revokedAt !== undefined) return 'revoked';
    if (token.replacedAt !== undefined) return 'replaced';
    return this.now() >= token.expiresAt ? 'expired' : 'valid';
  }

  /** v2.1 keeps the refresh token and points it at the new access token. */
  moveRefresh(token: string, accessToken: string): void {
    sql(this.db, 'UPDATE login_refresh_tokens SET access_token = ? WHERE token = ?').run(
      accessToken,
      token,
    );
  }

  markReplaced(token: string): void {
    sql(this.db, 'UPDATE login_refresh_tokens SET replaced_at = ? WHERE token = ?').run(
      this.now(),
      token,
    );
  }

  revokeRefresh(token: string): void {
    sql(
      this.db,
      'UPDATE login_refresh_tokens SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL',
    ).run(this.now(), token);
  }

  /** Deauthorizing a user ends every login session they have with the channel. */
  revokeUserRefresh(channelId: string, userId: string): void {
    sql(
      this.db,
      `UPDATE login_refresh_tokens SET revoked_at = ?
       WHERE channel_id = ? AND user_id = ? AND revoked_at IS NULL`,
    ).run(this.now(), channelId, userId);
  }
}

function toRefresh(row: RefreshRow): RefreshToken {
  return {
    token: row.token,
    version: row.version,
    channelId: row.channel_id,
    userId: row.user_id,
    scopes: row.scopes ? row.scopes.split(' ') : [],
    accessToken: row.access_token,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at ?? undefined,
    replacedAt: row.replaced_at ?? undefined,
  };
}
