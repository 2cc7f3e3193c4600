// What to do when no adapter can be opened, from why: a kernel without Bluetooth needs another
// answer than a machine with no adapter plugged in or a user without permission
// (docs/decisions.md, "Provisioning spends a PSDI only on a board that can take it").

/** Advice for a `noAdapter` state, fitted to the reason the central gave. */
export function noAdapterAdvice(reason: string | undefined): string {
  const why = reason ?? '';
  if (/EAFNOSUPPORT|address family not supported/i.test(why))
    return "This machine's kernel has no Bluetooth support (it refuses Bluetooth sockets), so no adapter can be used here, plugged in or not. Use a kernel with Bluetooth (on Linux the bluetooth module; in a container or VM, pass the host's adapter through), or switch to the simulated bench.";
  if (/EPERM|EACCES|not permitted|permission denied/i.test(why))
    return 'DeviceBench may not open the Bluetooth adapter. Run it with the cap_net_raw capability or as a member of the bluetooth group, then restart the BLE process.';
  if (/ENODEV|no such device/i.test(why))
    return 'The kernel has Bluetooth but no adapter is present. Plug one in (or switch to the simulated bench), then restart the BLE process.';
  return 'No Bluetooth adapter could be opened. Check that one is plugged in and enabled (or switch to the simulated bench), then restart the BLE process.';
}
