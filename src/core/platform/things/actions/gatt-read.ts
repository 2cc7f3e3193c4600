// GATT_READ: reads a characteristic; the result carries the bytes read.
import { gattTarget, type ActionDescriptor } from './descriptor';

export const gattReadAction: ActionDescriptor = {
  type: 'GATT_READ',
  label: 'GATT_READ',
  colour: 'accent',
  fields: ['serviceUuid', 'characteristicUuid'],
  async run(action, context) {
    const data = await context.read(action.serviceUuid ?? '', action.characteristicUuid ?? '');
    return { result: { type: 'binary', data }, data };
  },
  boardAccess: 'read',
  failureFacts: gattTarget,
};
