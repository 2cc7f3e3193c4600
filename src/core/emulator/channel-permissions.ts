// Per-channel "may use this API" switches (mission stickers, notification messages): allowed
// unless the admin API says otherwise, so a fresh emulator works with no set-up.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseOr400 } from './area';
import type { Directory } from './channels';
import { sql, type Db } from './store';

const input = z.object({ allowed: z.boolean({ error: 'is required' }) });

export class ChannelPermissions {
  constructor(
    private readonly db: Db,
    private readonly table: string,
  ) {}

  migrate(): void {
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${this.table} (channel_id TEXT PRIMARY KEY, allowed INTEGER NOT NULL)`,
    );
  }

  allowed(channelId: string): boolean {
    const row = sql(this.db, `SELECT allowed FROM ${this.table} WHERE channel_id = ?`).get(
      channelId,
    ) as { allowed: number } | undefined;
    return row ? row.allowed === 1 : true;
  }

  /** `PUT /permissions/:channelId {allowed}` on the area's admin routes. */
  route(app: FastifyInstance, directory: Directory): void {
    app.put<{ Params: { channelId: string } }>('/permissions/:channelId', async (req, reply) => {
      const body = parseOr400(input, req.body, reply);
      if (!body) return;
      if (!directory.channels().some((c) => c.channelId === req.params.channelId))
        return reply.code(404).send({ message: `No channel ${req.params.channelId}.` });
      sql(
        this.db,
        `INSERT INTO ${this.table} (channel_id, allowed) VALUES (?, ?)
         ON CONFLICT(channel_id) DO UPDATE SET allowed = excluded.allowed`,
      ).run(req.params.channelId, body.allowed ? 1 : 0);
      return { channelId: req.params.channelId, allowed: body.allowed };
    });
  }
}
