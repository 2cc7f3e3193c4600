// The old mark-as-read call (docs/platform-api.md#messaging): its body and what the emulator
// remembers of it. Browser-safe.
import { z } from 'zod';

export const markAsReadBodySchema = z.object({
  chat: z.object(
    {
      userId: z.string({ error: 'is required: the user whose messages are marked read' }),
    },
    { error: 'is required: an object holding userId' },
  ),
});

export interface ReadMark {
  channelId: string;
  userId: string;
  /** Virtual-clock ms. */
  markedAt: number;
}
