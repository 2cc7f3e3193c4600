// One central for one adapter of any kind in adapter-spec.ts. The API, which callers build on:
//
//   openCentral(spec, options): Promise<NobleCentral | NoAdapterCentral>
//
// - It never rejects for an adapter that is missing or cannot be opened: that is a
//   NoAdapterCentral whose `reason` (also `stateReason()`) says what to do.
// - It resolves once the adapter is usable as far as the transport can tell: for `serial:`,
//   `tcp:` and `unix:` the stream is open and the controller answered an HCI Reset (within 1 s);
//   for the others at once. noble then settles the state as usual (`unknown` → `poweredOn`).
// - A stream that goes away later (dongle unplugged, TCP peer closed) turns the NobleCentral
//   into `noAdapter` with the reason, for good; its open links end with a disconnect. Open a new
//   central to try again.
// - `options.trace` records every transport's HCI traffic through the tap, as on the sim; H4
//   resyncs are recorded there too and reported to `options.onResync`.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { formatAdapterSpec, type AdapterSpec } from '../adapter-spec';
import { NoAdapterCentral } from './no-adapter-central';
import { createHardwareCentral } from './native-central';
import { createSimulatedCentral, type SimulatedCentralOptions } from './sim-central';
import { hciCentral, kernelCentral } from './hci-central';
import type { NobleCentral } from './noble-central';
import type { H4Counts } from '../hci/h4-framer';
import { openH4 } from '../hci/h4-transports';
import type { HciSocket } from '../hci/socket';
import type { SimulatedBench } from '../sim/bench';
import { errorMessage } from '../../errors/message';

const require = createRequire(import.meta.url);

export interface OpenCentralOptions extends SimulatedCentralOptions {
  /** The bench a `sim` adapter joins; without it `sim` is a NoAdapterCentral. */
  bench?: SimulatedBench;
  /** How long a stream controller has to answer the HCI Reset. Default 1 s. */
  resetTimeoutMs?: number;
  /** The framer skipped garbage on a stream transport (counts so far). */
  onResync?: (skippedBytes: number, counts: H4Counts) => void;
}

export type OpenedCentral = NobleCentral | NoAdapterCentral;

/** The USB socket's calls beyond HciSocket: binding to one VID/PID, and its own HCI Reset. */
type UsbHciSocket = Omit<HciSocket, 'bindUser'> & {
  bindUser(devId?: number, params?: { usb: { vid: number; pid: number } }): number;
  reset(): void;
};

/** bluetooth-hci-socket's USB transport (libusb via `usb`), loaded directly whatever the OS. */
function loadUsbHciSocket(): new () => UsbHciSocket {
  const root = dirname(require.resolve('@abandonware/bluetooth-hci-socket/package.json'));
  return require(join(root, 'lib', 'usb.js')) as never;
}

function usbCentral(
  spec: Extract<AdapterSpec, { kind: 'usb' }>,
  options: OpenCentralOptions,
): OpenedCentral {
  const name = formatAdapterSpec(spec);
  let socket: UsbHciSocket;
  try {
    socket = new (loadUsbHciSocket())();
  } catch (err) {
    return new NoAdapterCentral(
      `the USB HCI transport could not be loaded (${errorMessage(err)}): use a serial HCI dongle (serial:<port>) instead`,
    );
  }
  const params = { usb: { vid: spec.vendorId, pid: spec.productId } };
  try {
    // Claimed here, once, so a missing or busy dongle is a reason, not a failure inside noble.
    socket.bindUser(undefined, params);
  } catch (err) {
    return new NoAdapterCentral(
      `${name} could not be claimed (${errorMessage(err)}): check that it is plugged in, that no driver holds it (on Linux the kernel's btusb; on Windows install WinUSB with Zadig) and that this user may open it`,
    );
  }
  // noble binds again in its init; the device is already claimed, so that is a reset only.
  const reset = socket.reset.bind(socket);
  socket.bindRaw = () => (reset(), 0);
  socket.bindUser = () => (reset(), 0);
  return hciCentral(socket, options, () => socket.stop());
}

/** A central for one adapter; see the file's header for what the promise means. */
export async function openCentral(
  spec: AdapterSpec,
  given: OpenCentralOptions = {},
): Promise<OpenedCentral> {
  const options = { identityKey: formatAdapterSpec(spec), ...given };
  switch (spec.kind) {
    case 'sim':
      if (!options.bench)
        return new NoAdapterCentral('the simulated bench is not running in this process');
      return createSimulatedCentral(options.bench, options);
    case 'hci':
      if (process.platform !== 'linux')
        return new NoAdapterCentral(
          `hci${spec.index} is a Linux kernel adapter: on this system use a serial HCI dongle (serial:<port>) or native`,
        );
      return kernelCentral(spec.index, options);
    case 'native':
      return createHardwareCentral(options);
    case 'usb':
      return usbCentral(spec, options);
    case 'serial':
    case 'tcp':
    case 'unix': {
      let socket;
      try {
        socket = await openH4(spec, {
          trace: options.trace,
          onResync: options.onResync,
          resetTimeoutMs: options.resetTimeoutMs,
        });
      } catch (err) {
        return new NoAdapterCentral(errorMessage(err));
      }
      const opened = socket;
      return hciCentral(
        opened,
        {
          ...options,
          transportLost: (listener) => opened.once('lost', listener),
          transportReset: (listener) => opened.on('resetting', listener),
          transportNotice: (listener) => opened.once('corrupt', listener),
        },
        () => opened.stop(),
      );
    }
  }
}
