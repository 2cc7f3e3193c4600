// GATT_WRITE: writes `data` (base64) to a characteristic.
import { gattTarget, type ActionDescriptor } from './descriptor';

export const gattWriteAction: ActionDescriptor = {
  type: 'GATT_WRITE',
  label: 'GATT_WRITE',
  colour: 'violet',
  fields: ['serviceUuid', 'characteristicUuid', 'data'],
  async run(action, context) {
    const data = action.data ?? '';
    await context.write(action.serviceUuid ?? '', action.characteristicUuid ?? '', data);
    return { result: { type: 'void' }, data };
  },
  writes: true,
  boardAccess: 'write',
  failureFacts: gattTarget,
};
