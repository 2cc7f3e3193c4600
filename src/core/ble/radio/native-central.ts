// The `native` adapter: the machine's own, through noble's OS binding, loaded only when asked so
// a missing driver is a state, not a crash (docs/decisions.md, "Adapter spec everywhere, native
// bindings and several adapters at once"). On Linux that is the kernel's HCI socket with the tap.
import { createRequire } from 'node:module';
import type { NobleInstance } from '@abandonware/noble/with-bindings';
import { kernelCentral, type HciCentralOptions } from './hci-central';
import { NoAdapterCentral } from './no-adapter-central';
import { NobleCentral } from './noble-central';
import { errorMessage } from '../../errors/message';

const require = createRequire(import.meta.url);

/**
 * The machine's own adapter, loaded only now: on Linux noble's HCI host stack over the kernel's
 * HCI socket with the tap between them (as in the simulated bench), elsewhere noble's default
 * binding. A driver that fails to load (no HCI socket, no permission, unsupported OS) gives a
 * `noAdapter` central.
 */
export function createHardwareCentral(
  options: HciCentralOptions = {},
): NobleCentral | NoAdapterCentral {
  if (process.platform === 'linux') return kernelCentral(undefined, options);
  let noble: NobleInstance;
  try {
    noble = require('@abandonware/noble') as NobleInstance;
  } catch (err) {
    return new NoAdapterCentral(`the Bluetooth driver could not be loaded (${errorMessage(err)})`);
  }
  return new NobleCentral(noble, options);
}
