// A board's answer is input from outside: checked against its shape once, where it arrives,
// and refused naming the command and the field.
import type { z } from 'zod';
import { McumgrError } from './client';
import type { McumgrBody } from './frame';

export function parseAnswer<T extends z.ZodType>(
  command: string,
  schema: T,
  body: McumgrBody,
): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(body)';
  throw new McumgrError('frame', `MCUmgr ${command} answer: ${field}: ${issue.message}`);
}
