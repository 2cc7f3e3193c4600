// The OS group's commands a bench uses (docs/mcumgr/os.md): echo, reset, MCUmgr parameters.
import { z } from 'zod';
import type { McumgrClient } from './client';
import { MCUMGR_COMMAND, MCUMGR_GROUP } from './groups';
import { parseAnswer } from './answer';

const group = MCUMGR_GROUP.os;
const ids = MCUMGR_COMMAND.os;

/** The board sends back what it was sent. */
export async function echo(client: McumgrClient, text: string): Promise<string> {
  const answer = await client.request({ op: 'write', group, command: ids.echo, body: { d: text } });
  return parseAnswer('echo', z.object({ r: z.string() }), answer).r;
}

/** Asks the board to reboot; it answers first, then drops the link. */
export async function reset(client: McumgrClient, force = false): Promise<void> {
  await client.request({
    op: 'write',
    group,
    command: ids.reset,
    body: force ? { force: 1 } : {},
  });
}

export interface McumgrParams {
  /** The largest request the board takes, header included. */
  bufferSize: number;
  bufferCount: number;
}

export async function params(client: McumgrClient): Promise<McumgrParams> {
  const answer = await client.request({ op: 'read', group, command: ids.params });
  const { buf_size, buf_count } = parseAnswer(
    'parameters',
    z.object({ buf_size: z.number().int().positive(), buf_count: z.number().int().positive() }),
    answer,
  );
  return { bufferSize: buf_size, bufferCount: buf_count };
}
