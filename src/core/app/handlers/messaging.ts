// Mark as read (old): one call of the messaging client on the active environment.
import { MessagingClient } from '../../platform/messaging/client';
import type { messagingOperations } from '../contracts/messaging';
import type { AppContext, AreaHandlers } from './context';

export function messagingHandlers(ctx: AppContext): AreaHandlers<typeof messagingOperations> {
  return {
    'messaging:markAsRead': async ({ userId }) => {
      await new MessagingClient(await ctx.envs.activeTarget(), ctx.options.http).markAsRead(userId);
      return { marked: true as const };
    },
  };
}
