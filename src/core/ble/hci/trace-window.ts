// The time window a trace is cut for, checked the same way by the trace store and the app's
// contract (browser-safe: zod only).
import { z } from 'zod';

const epochMs = z
  .number({ error: 'must be a time in ms since the epoch' })
  .int('must be a whole number of ms')
  .min(0, 'must be a time in ms since the epoch');

/** `from` and `to` in ms since the epoch, both ends included. */
export const traceWindowSchema = z
  .object({ from: epochMs, to: epochMs })
  .refine((w) => w.to >= w.from, { path: ['to'], error: 'must not be before from' });
export type TraceWindow = z.infer<typeof traceWindowSchema>;
