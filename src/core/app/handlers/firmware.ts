// Firmware on a BLE bench card's board: each operation is one call of the board's firmware
// service (src/core/usecases/bench/board-firmware.ts) over the firmware use case.
import type { BoardFirmware } from '../../usecases/bench/board-firmware';
import { imageFromBase64, imageInfo } from '../../usecases/bench/board-firmware';
import type { firmwareEvents, firmwareOperations } from '../contracts/firmware';
import type { AreaEvents, AreaHandlers } from './context';
import { listen } from './listen';

export function firmwareHandlers(firmware: BoardFirmware): {
  handlers: AreaHandlers<typeof firmwareOperations>;
  sources: AreaEvents<typeof firmwareEvents>;
} {
  return {
    handlers: {
      'firmware:inspectImage': async ({ image }) => imageInfo(imageFromBase64(image)),
      'firmware:slots': ({ connectionId }) => firmware.slots(connectionId),
      'firmware:upload': ({ connectionId, image }) =>
        firmware.upload(connectionId, imageFromBase64(image)),
      'firmware:cancelUpload': async ({ connectionId }) => ({
        uploading: firmware.cancelUpload(connectionId),
      }),
      'firmware:test': ({ connectionId, hash }) => firmware.test(connectionId, hash),
      'firmware:confirm': ({ connectionId }) => firmware.confirm(connectionId),
      'firmware:reset': ({ connectionId }) => firmware.reset(connectionId),
      'firmware:echo': ({ connectionId, text }) => firmware.echo(connectionId, text),
    },
    sources: {
      'firmware:progress': (handler) => listen(firmware, 'progress', handler),
      'firmware:busy': (handler) => listen(firmware, 'busy', handler),
      'firmware:slots': (handler) => listen(firmware, 'slots', handler),
    },
  };
}
