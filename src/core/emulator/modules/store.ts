// The module area's tables and the state machines of docs/platform-api.md#modules-states over them:
// attachments (attached, suspended, detached), chat control per account and chat, authorization
// codes and bot-list continuation tokens. Pure state: events are the caller's business.
import { randomBytes } from 'node:crypto';
import { readMeta, sql, writeMeta, type Db } from '../store';
import {
  CONTINUATION_TOKEN_TTL_MS,
  DEFAULT_BOT_USER_ID_HEADER,
  DELETION_DETACH_MS,
  type AttachmentState,
  type ModuleBot,
} from '../../platform/modules/schema';

/** Authorization codes are single use and short-lived (the platform does not say how short). */
const CODE_TTL_MS = 10 * 60_000;
const HEADER_META_KEY = 'modules.botUserIdHeader';

export interface BotRow {
  bot_id: string;
  primary_channel_id: string;
  basic_id: string;
  premium_id: string | null;
  display_name: string;
  picture_url: string | null;
  status: 'active' | 'suspended' | 'deleted';
  deleted_at: number | null;
  created_at: number;
}
export interface AttachmentRow {
  module_channel_id: string;
  bot_id: string;
  state: AttachmentState;
  scopes: string;
  attached_at: number;
  updated_at: number;
}
export interface ControlRow {
  bot_id: string;
  chat_id: string;
  module_channel_id: string;
  acquired_at: number;
  expire_at: number | null;
}
export interface CodeRow {
  code: string;
  module_channel_id: string;
  bot_id: string;
  redirect_uri: string;
  region: string | null;
  basic_search_id: string | null;
  scope: string | null;
  brand_type: string | null;
  code_challenge: string | null;
  code_challenge_method: 'S256' | 'plain' | null;
  expires_at: number;
  used_at: number | null;
}

export function migrate(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS module_channels (
      channel_id TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS module_bots (
      bot_id TEXT PRIMARY KEY,
      primary_channel_id TEXT NOT NULL,
      basic_id TEXT NOT NULL,
      premium_id TEXT,
      display_name TEXT NOT NULL,
      picture_url TEXT,
      status TEXT NOT NULL,
      deleted_at INTEGER,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS module_chats (
      bot_id TEXT NOT NULL,
      chat_id TEXT NOT NULL,
      PRIMARY KEY (bot_id, chat_id)
    );
    CREATE TABLE IF NOT EXISTS module_codes (
      code TEXT PRIMARY KEY,
      module_channel_id TEXT NOT NULL,
      bot_id TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      region TEXT,
      basic_search_id TEXT,
      scope TEXT,
      brand_type TEXT,
      code_challenge TEXT,
      code_challenge_method TEXT,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS module_attachments (
      module_channel_id TEXT NOT NULL,
      bot_id TEXT NOT NULL,
      state TEXT NOT NULL,
      scopes TEXT NOT NULL,
      attached_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (module_channel_id, bot_id)
    );
    CREATE TABLE IF NOT EXISTS module_controls (
      bot_id TEXT NOT NULL,
      chat_id TEXT NOT NULL,
      module_channel_id TEXT NOT NULL,
      acquired_at INTEGER NOT NULL,
      expire_at INTEGER,
      PRIMARY KEY (bot_id, chat_id)
    );
    CREATE TABLE IF NOT EXISTS module_control_acquisitions (
      bot_id TEXT NOT NULL,
      chat_id TEXT NOT NULL,
      module_channel_id TEXT NOT NULL,
      acquired_at INTEGER NOT NULL,
      PRIMARY KEY (bot_id, chat_id)
    );
    CREATE TABLE IF NOT EXISTS module_list_tokens (
      token TEXT PRIMARY KEY,
      channel_id TEXT NOT NULL,
      offset INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
  `);
}

export class ModuleStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  get botUserIdHeader(): string {
    return readMeta(this.db, HEADER_META_KEY) ?? DEFAULT_BOT_USER_ID_HEADER;
  }

  set botUserIdHeader(name: string) {
    writeMeta(this.db, HEADER_META_KEY, name);
  }

  isModuleChannel(channelId: string): boolean {
    return !!sql(this.db, 'SELECT 1 FROM module_channels WHERE channel_id = ?').get(channelId);
  }

  markModuleChannel(channelId: string): void {
    sql(
      this.db,
      'INSERT OR IGNORE INTO module_channels (channel_id, created_at) VALUES (?, ?)',
    ).run(channelId, this.now());
  }

  moduleChannelIds(): string[] {
    return (
      sql(
        this.db,
        'SELECT channel_id FROM module_channels ORDER BY created_at, channel_id',
      ).all() as {
        channel_id: string;
      }[]
    ).map((r) => r.channel_id);
  }

  // ---- accounts (bots) ----

  insertBot(row: Omit<BotRow, 'status' | 'deleted_at' | 'created_at'>): void {
    sql(
      this.db,
      `INSERT INTO module_bots (bot_id, primary_channel_id, basic_id, premium_id, display_name,
         picture_url, status, created_at)
       VALUES (@bot_id, @primary_channel_id, @basic_id, @premium_id, @display_name, @picture_url,
         'active', @created_at)`,
    ).run({ ...row, created_at: this.now() });
  }

  bot(botId: string): BotRow | undefined {
    return sql(this.db, 'SELECT * FROM module_bots WHERE bot_id = ?').get(botId) as
      BotRow | undefined;
  }

  bots(): ModuleBot[] {
    const rows = sql(
      this.db,
      'SELECT * FROM module_bots ORDER BY created_at, bot_id',
    ).all() as BotRow[];
    return rows.map((r) => ({
      botId: r.bot_id,
      basicId: r.basic_id,
      premiumId: r.premium_id ?? undefined,
      displayName: r.display_name,
      pictureUrl: r.picture_url ?? undefined,
      primaryChannelId: r.primary_channel_id,
      status: r.status,
      deletedAt: r.deleted_at ?? undefined,
      chats: this.chats(r.bot_id),
    }));
  }

  setBotStatus(botId: string, status: BotRow['status']): void {
    sql(this.db, 'UPDATE module_bots SET status = ?, deleted_at = ? WHERE bot_id = ?').run(
      status,
      status === 'deleted' ? this.now() : null,
      botId,
    );
  }

  addChat(botId: string, chatId: string): void {
    sql(this.db, 'INSERT OR IGNORE INTO module_chats (bot_id, chat_id) VALUES (?, ?)').run(
      botId,
      chatId,
    );
  }

  removeChat(botId: string, chatId: string): boolean {
    return (
      sql(this.db, 'DELETE FROM module_chats WHERE bot_id = ? AND chat_id = ?').run(botId, chatId)
        .changes > 0
    );
  }

  hasChat(botId: string, chatId: string): boolean {
    return !!sql(this.db, 'SELECT 1 FROM module_chats WHERE bot_id = ? AND chat_id = ?').get(
      botId,
      chatId,
    );
  }

  private chats(botId: string): string[] {
    return (
      sql(this.db, 'SELECT chat_id FROM module_chats WHERE bot_id = ? ORDER BY chat_id').all(
        botId,
      ) as {
        chat_id: string;
      }[]
    ).map((r) => r.chat_id);
  }

  // ---- authorization codes ----

  mintCode(row: Omit<CodeRow, 'code' | 'expires_at' | 'used_at'>): CodeRow {
    const code: CodeRow = {
      ...row,
      code: randomBytes(16).toString('base64url'),
      expires_at: this.now() + CODE_TTL_MS,
      used_at: null,
    };
    sql(
      this.db,
      `INSERT INTO module_codes (code, module_channel_id, bot_id, redirect_uri, region,
         basic_search_id, scope, brand_type, code_challenge, code_challenge_method, expires_at)
       VALUES (@code, @module_channel_id, @bot_id, @redirect_uri, @region, @basic_search_id,
         @scope, @brand_type, @code_challenge, @code_challenge_method, @expires_at)`,
    ).run(code);
    return code;
  }

  code(code: string): CodeRow | undefined {
    return sql(this.db, 'SELECT * FROM module_codes WHERE code = ?').get(code) as
      CodeRow | undefined;
  }

  useCode(code: string): void {
    sql(this.db, 'UPDATE module_codes SET used_at = ? WHERE code = ?').run(this.now(), code);
  }

  // ---- attachments ----

  attachment(moduleChannelId: string, botId: string): AttachmentRow | undefined {
    return sql(
      this.db,
      'SELECT * FROM module_attachments WHERE module_channel_id = ? AND bot_id = ?',
    ).get(moduleChannelId, botId) as AttachmentRow | undefined;
  }

  attachments(
    filter: { moduleChannelId?: string; botId?: string; state?: AttachmentState } = {},
  ): AttachmentRow[] {
    return sql(
      this.db,
      `SELECT * FROM module_attachments
       WHERE (@channel IS NULL OR module_channel_id = @channel) AND (@botId IS NULL OR bot_id = @botId)
         AND (@state IS NULL OR state = @state)
       ORDER BY attached_at, module_channel_id, bot_id`,
    ).all({
      channel: filter.moduleChannelId ?? null,
      botId: filter.botId ?? null,
      state: filter.state ?? null,
    }) as AttachmentRow[];
  }

  attach(moduleChannelId: string, botId: string, scopes: string[]): void {
    const now = this.now();
    sql(
      this.db,
      `INSERT INTO module_attachments (module_channel_id, bot_id, state, scopes, attached_at, updated_at)
       VALUES (?, ?, 'attached', ?, ?, ?)
       ON CONFLICT(module_channel_id, bot_id) DO UPDATE SET state = 'attached',
         scopes = excluded.scopes, updated_at = excluded.updated_at,
         attached_at = CASE WHEN module_attachments.state = 'detached'
           THEN excluded.attached_at ELSE module_attachments.attached_at END`,
    ).run(moduleChannelId, botId, scopes.join(' '), now, now);
  }

  setAttachmentState(moduleChannelId: string, botId: string, state: AttachmentState): void {
    sql(
      this.db,
      'UPDATE module_attachments SET state = ?, updated_at = ? WHERE module_channel_id = ? AND bot_id = ?',
    ).run(state, this.now(), moduleChannelId, botId);
    if (state === 'detached')
      sql(this.db, 'DELETE FROM module_controls WHERE module_channel_id = ? AND bot_id = ?').run(
        moduleChannelId,
        botId,
      );
  }

  /**
   * Attachments of deleted accounts whose three months have passed
   * (docs/platform-api.md#modules-states), still not detached.
   */
  dueForDeletionDetach(): AttachmentRow[] {
    return sql(
      this.db,
      `SELECT a.* FROM module_attachments a JOIN module_bots b ON b.bot_id = a.bot_id
       WHERE b.status = 'deleted' AND b.deleted_at <= ? AND a.state != 'detached'`,
    ).all(this.now() - DELETION_DETACH_MS) as AttachmentRow[];
  }

  // ---- chat control ----

  /** The module channel active in a chat now; an expired `ttl` means the primary has it back. */
  activeControl(botId: string, chatId: string): ControlRow | undefined {
    const row = sql(this.db, 'SELECT * FROM module_controls WHERE bot_id = ? AND chat_id = ?').get(
      botId,
      chatId,
    ) as ControlRow | undefined;
    return row && (row.expire_at === null || row.expire_at > this.now()) ? row : undefined;
  }

  controls(): ControlRow[] {
    return sql(
      this.db,
      `SELECT * FROM module_controls WHERE expire_at IS NULL OR expire_at > ?
       ORDER BY acquired_at, bot_id, chat_id`,
    ).all(this.now()) as ControlRow[];
  }

  /** Takes control and remembers the acquisition, which outlives a release or an expiry. */
  setControl(row: ControlRow): void {
    sql(
      this.db,
      `INSERT OR REPLACE INTO module_controls (bot_id, chat_id, module_channel_id, acquired_at, expire_at)
       VALUES (@bot_id, @chat_id, @module_channel_id, @acquired_at, @expire_at)`,
    ).run(row);
    sql(
      this.db,
      `INSERT OR REPLACE INTO module_control_acquisitions (bot_id, chat_id, module_channel_id, acquired_at)
       VALUES (@bot_id, @chat_id, @module_channel_id, @acquired_at)`,
    ).run({
      bot_id: row.bot_id,
      chat_id: row.chat_id,
      module_channel_id: row.module_channel_id,
      acquired_at: row.acquired_at,
    });
  }

  /**
   * The latest acquisition of a chat, whether or not its channel still holds control: the 423
   * window counts acquisitions, not holders (docs/platform-api.md#modules-errors).
   */
  lastAcquisition(
    botId: string,
    chatId: string,
  ): { module_channel_id: string; acquired_at: number } | undefined {
    return sql(
      this.db,
      'SELECT module_channel_id, acquired_at FROM module_control_acquisitions WHERE bot_id = ? AND chat_id = ?',
    ).get(botId, chatId) as { module_channel_id: string; acquired_at: number } | undefined;
  }

  clearControl(botId: string, chatId: string): void {
    sql(this.db, 'DELETE FROM module_controls WHERE bot_id = ? AND chat_id = ?').run(botId, chatId);
  }

  // ---- bot list continuation tokens ----

  issueListToken(channelId: string, offset: number): string {
    const token = randomBytes(24).toString('base64url');
    sql(
      this.db,
      'INSERT INTO module_list_tokens (token, channel_id, offset, created_at) VALUES (?, ?, ?, ?)',
    ).run(token, channelId, offset, this.now());
    return token;
  }

  /** The offset a token continues from, or undefined when unknown, foreign or 24 hours old. */
  listTokenOffset(channelId: string, token: string): number | undefined {
    const row = sql(this.db, 'SELECT * FROM module_list_tokens WHERE token = ?').get(token) as
      { channel_id: string; offset: number; created_at: number } | undefined;
    if (!row || row.channel_id !== channelId) return undefined;
    if (this.now() - row.created_at >= CONTINUATION_TOKEN_TTL_MS) return undefined;
    return row.offset;
  }
}
