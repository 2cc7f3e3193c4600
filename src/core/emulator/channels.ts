// Channels and users known to the emulator. A channel's access token is how every
// Bearer-authenticated route finds out who is calling.
import { randomBytes } from 'node:crypto';
import { nextSequence, sql, type Db } from './store';

export interface Channel {
  /** Digits, as the platform writes channel IDs in strings; trial products carry it as a number. */
  channelId: string;
  name: string;
  channelSecret: string;
  channelAccessToken: string;
}

export interface User {
  userId: string;
  displayName: string;
}

const FIRST_CHANNEL_ID = 2_000_000_000;

export class Directory {
  /** Every authenticated request looks its token up; channels change rarely, so keep them here. */
  private byToken: Map<string, Channel> | undefined;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS channels (
        channel_id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        secret TEXT NOT NULL,
        access_token TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS users (
        user_id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `);
  }

  /** A fresh emulator gets one channel so it is usable with no set-up at all. */
  ensureDefaultChannel(): void {
    const { n } = sql(this.db, 'SELECT COUNT(*) AS n FROM channels').get() as { n: number };
    if (n === 0) this.createChannel('Default channel');
  }

  createChannel(name: string): Channel {
    const channel: Channel = {
      channelId: String(FIRST_CHANNEL_ID + nextSequence(this.db, 'channel')),
      name,
      channelSecret: randomBytes(16).toString('hex'),
      channelAccessToken: randomBytes(32).toString('base64url'),
    };
    sql(
      this.db,
      'INSERT INTO channels (channel_id, name, secret, access_token, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(channel.channelId, name, channel.channelSecret, channel.channelAccessToken, this.now());
    this.byToken = undefined;
    return channel;
  }

  channels(): Channel[] {
    return (sql(this.db, 'SELECT * FROM channels ORDER BY channel_id').all() as ChannelRow[]).map(
      toChannel,
    );
  }

  channelByToken(token: string): Channel | undefined {
    this.byToken ??= new Map(this.channels().map((c) => [c.channelAccessToken, c]));
    return this.byToken.get(token);
  }

  createUser(displayName: string, userId = `U${randomBytes(16).toString('hex')}`): User {
    sql(
      this.db,
      `INSERT INTO users (user_id, display_name, created_at) VALUES (?, ?, ?)
         ON CONFLICT(user_id) DO UPDATE SET display_name = excluded.display_name`,
    ).run(userId, displayName, this.now());
    return { userId, displayName };
  }

  user(userId: string): User | undefined {
    const row = sql(this.db, 'SELECT * FROM users WHERE user_id = ?').get(userId) as
      { user_id: string; display_name: string } | undefined;
    return row && { userId: row.user_id, displayName: row.display_name };
  }

  users(): User[] {
    return (
      sql(this.db, 'SELECT * FROM users ORDER BY created_at, user_id').all() as {
        user_id: string;
        display_name: string;
      }[]
    ).map((r) => ({ userId: r.user_id, displayName: r.display_name }));
  }
}

interface ChannelRow {
  channel_id: number;
  name: string;
  secret: string;
  access_token: string;
}

function toChannel(row: ChannelRow): Channel {
  return {
    channelId: String(row.channel_id),
    name: row.name,
    channelSecret: row.secret,
    channelAccessToken: row.access_token,
  };
}
