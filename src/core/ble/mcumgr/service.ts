// The SMP transport for Bluetooth LE (docs/mcumgr/protocol.md): one service, one
// characteristic. Browser-safe: the BLE bench shows the Firmware panel for boards that have it.
import { normalizeUuid } from '../port';

export const MCUMGR_SERVICE_UUID = normalizeUuid('8d53dc1d-1db7-4cd3-868b-8a527460aa84');
export const MCUMGR_CHARACTERISTIC_UUID = normalizeUuid('da2e7828-fbce-4e01-ae9e-261174997c48');
