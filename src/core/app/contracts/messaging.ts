// The old mark-as-read call (docs/platform-api.md#messaging).
import { z } from 'zod';
import { op } from './op';
import { userId } from './fields';

export const messagingOperations = {
  'messaging:markAsRead': op(z.object({ userId }), z.object({ marked: z.literal(true) })),
} as const;
