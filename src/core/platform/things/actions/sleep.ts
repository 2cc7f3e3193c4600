// SLEEP: waits `sleepMillis` on the run's clock.
import type { ActionDescriptor } from './descriptor';

export const sleepAction: ActionDescriptor = {
  type: 'SLEEP',
  label: 'SLEEP',
  colour: 'slate',
  fields: ['sleepMillis'],
  async run(action, context) {
    await context.sleep(action.sleepMillis ?? 0);
    return { result: { type: 'void' } };
  },
};
