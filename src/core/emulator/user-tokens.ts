// User access tokens, shared by every area that takes `Authorization: Bearer <ACCESS_TOKEN>`
// (profile, userinfo, in-app purchase, service messages). The login area issues them through its
// OAuth flow; the admin API mints them directly, so other areas can be exercised without going
// through login. States follow docs/platform-api.md#login-lifecycle, driven by the virtual clock.
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { bearerTokenOf } from './bearer';
import { sql, type Db } from './store';

/** docs/platform-api.md#login-lifecycle: an access token is valid 30 days. */
const ACCESS_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type TokenVersion = '2.0' | '2.1';
export type TokenState = 'valid' | 'expired' | 'revoked' | 'deauthorized';

export interface UserAccessToken {
  accessToken: string;
  userId: string;
  channelId: string;
  /** Granted scopes, e.g. `openid profile email` (v2.1) or `P` (v2.0). */
  scopes: string[];
  version: TokenVersion;
  issuedAt: number;
  expiresAt: number;
  revokedAt?: number;
  deauthorizedAt?: number;
}

interface Row {
  token: string;
  user_id: string;
  channel_id: string;
  scopes: string;
  version: TokenVersion;
  issued_at: number;
  expires_at: number;
  revoked_at: number | null;
  deauthorized_at: number | null;
}

export class UserTokens {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS user_access_tokens (
        token TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        scopes TEXT NOT NULL,
        version TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER,
        deauthorized_at INTEGER
      );
      CREATE INDEX IF NOT EXISTS user_access_tokens_user ON user_access_tokens (channel_id, user_id);
    `);
  }

  mint(input: {
    userId: string;
    channelId: string;
    scopes: string[];
    version?: TokenVersion;
  }): UserAccessToken {
    const issuedAt = this.now();
    const token: UserAccessToken = {
      accessToken: randomBytes(24).toString('base64url'),
      userId: input.userId,
      channelId: input.channelId,
      scopes: input.scopes,
      version: input.version ?? '2.1',
      issuedAt,
      expiresAt: issuedAt + ACCESS_TOKEN_TTL_MS,
    };
    sql(
      this.db,
      `INSERT INTO user_access_tokens (token, user_id, channel_id, scopes, version, issued_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      token.accessToken,
      token.userId,
      token.channelId,
      token.scopes.join(' '),
      token.version,
      token.issuedAt,
      token.expiresAt,
    );
    return token;
  }

  /** The token whatever its state, or undefined if it was never issued. */
  get(accessToken: string): UserAccessToken | undefined {
    const row = sql(this.db, 'SELECT * FROM user_access_tokens WHERE token = ?').get(
      accessToken,
    ) as Row | undefined;
    return row && toToken(row);
  }

  state(token: UserAccessToken): TokenState {
    if (token.deauthorizedAt !== undefined) return 'deauthorized';
    if (token.revokedAt !== undefined) return 'revoked';
    return this.now() >= token.expiresAt ? 'expired' : 'valid';
  }

  /** The token if it is valid now. */
  active(accessToken: string): UserAccessToken | undefined {
    const token = this.get(accessToken);
    return token && this.state(token) === 'valid' ? token : undefined;
  }

  /** The valid token a request's `Authorization: Bearer` header carries, if any. */
  fromRequest(request: FastifyRequest): UserAccessToken | undefined {
    const token = bearerTokenOf(request);
    return token ? this.active(token) : undefined;
  }

  revoke(accessToken: string): void {
    sql(
      this.db,
      'UPDATE user_access_tokens SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL',
    ).run(this.now(), accessToken);
  }

  /**
   * Deauthorizes every token of the token's user on its channel
   * (docs/platform-api.md#login-endpoints deauthorize).
   */
  deauthorize(token: UserAccessToken): void {
    sql(
      this.db,
      `UPDATE user_access_tokens SET deauthorized_at = ?
       WHERE channel_id = ? AND user_id = ? AND deauthorized_at IS NULL`,
    ).run(this.now(), token.channelId, token.userId);
  }

  list(filter: { channelId?: string; userId?: string } = {}): UserAccessToken[] {
    const rows = sql(
      this.db,
      `SELECT * FROM user_access_tokens
       WHERE (@channelId IS NULL OR channel_id = @channelId) AND (@userId IS NULL OR user_id = @userId)
       ORDER BY issued_at, token`,
    ).all({ channelId: filter.channelId ?? null, userId: filter.userId ?? null }) as Row[];
    return rows.map(toToken);
  }
}

function toToken(row: Row): UserAccessToken {
  return {
    accessToken: row.token,
    userId: row.user_id,
    channelId: row.channel_id,
    scopes: row.scopes ? row.scopes.split(' ') : [],
    version: row.version,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at ?? undefined,
    deauthorizedAt: row.deauthorized_at ?? undefined,
  };
}
