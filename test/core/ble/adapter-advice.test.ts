// The advice beside a `noAdapter` state fits its cause: a kernel without Bluetooth is not told
// to plug an adapter in.
import { describe, expect, it } from 'vitest';
import { noAdapterAdvice } from '../../../src/core/ble/adapter-advice';

describe('advice when no adapter can be opened', () => {
  it('says the kernel has no Bluetooth when it refuses Bluetooth sockets', () => {
    // The reason this project's own hardware central gives on such a kernel.
    const advice = noAdapterAdvice(
      'the Bluetooth driver could not be loaded (EAFNOSUPPORT, Address family not supported by protocol)',
    );
    expect(advice).toBe(
      "This machine's kernel has no Bluetooth support (it refuses Bluetooth sockets), so no adapter can be used here, plugged in or not. Use a kernel with Bluetooth (on Linux the bluetooth module; in a container or VM, pass the host's adapter through), or switch to the simulated bench.",
    );
    expect(advice).not.toContain('Plug one in');
  });

  it('asks for permission, or for an adapter, when that is the cause', () => {
    expect(noAdapterAdvice('bind failed (EPERM, Operation not permitted)')).toBe(
      'DeviceBench may not open the Bluetooth adapter. Run it with the cap_net_raw capability or as a member of the bluetooth group, then restart the BLE process.',
    );
    expect(noAdapterAdvice('hci0: ENODEV, No such device')).toBe(
      'The kernel has Bluetooth but no adapter is present. Plug one in (or switch to the simulated bench), then restart the BLE process.',
    );
  });
});
