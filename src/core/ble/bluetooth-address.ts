// A Bluetooth device address as people write it, one rule for board files, the BLE process's
// methods, the contract and the CLI. Browser-safe (zod only).
import { z } from 'zod';

/** Most significant octet first, either case; carried in lowercase. */
export const bluetoothAddressSchema = z
  .string()
  .regex(
    /^(?:[0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/,
    'must be a Bluetooth address, e.g. "c4:7f:51:00:00:01"',
  )
  .transform((a) => a.toLowerCase());
