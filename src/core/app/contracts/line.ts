// A production line: where this station's audit log and PSDI pool live (this machine or a shared
// PostgreSQL), the station's name, copying local records to the shared log, and the line view.
import { z } from 'zod';
import { lineStatusSchema } from '../../audit/records';
import { none, op } from './op';

const auditSettingsViewSchema = z.object({
  /** What is saved; the environment may override it (see `active.fromEnvironment`). */
  mode: z.enum(['local', 'shared']),
  /** The saved URL, never with a password. */
  url: z.string().optional(),
  passwordSet: z.boolean(),
  station: z.string().optional(),
  defaultStation: z.string(),
  active: z.object({
    engine: z.enum(['sqlite', 'postgres']),
    /** A file, or the URL without its password. */
    location: z.string(),
    station: z.string(),
    available: z.boolean(),
    error: z.string().optional(),
    fromEnvironment: z.object({ url: z.boolean(), station: z.boolean() }),
  }),
});

export const lineOperations = {
  'line:getSettings': op(none, auditSettingsViewSchema),
  'line:saveSettings': op(
    z.object({
      mode: z.enum(['local', 'shared']),
      url: z.string().trim().max(2000).optional(),
      /** Omitted or empty keeps the stored password. */
      password: z.string().max(1000).optional(),
      station: z.string().trim().max(100, 'must be at most 100 characters').optional(),
    }),
    auditSettingsViewSchema,
  ),
  'line:copyLocalToShared': op(
    none,
    z.object({
      copied: z.number().int(),
      alreadyCopied: z.number().int(),
      refused: z.array(z.object({ id: z.number().int(), reason: z.string() })),
    }),
  ),
  'line:getStatus': op(
    none,
    lineStatusSchema.extend({
      engine: z.enum(['sqlite', 'postgres']),
      location: z.string(),
      station: z.string(),
    }),
  ),
} as const;
