// The bench's central beside a Zephyr peer: noble's HCI host over a new btvirt controller
// (`unix:` adapter), as `devicebench --adapter unix:<socket>` opens it; and finding the peer.
import { openCentral, type OpenCentralOptions } from '../../../src/core/ble/radio/open-central';
import { NoAdapterCentral } from '../../../src/core/ble/radio/no-adapter-central';
import type { NobleCentral } from '../../../src/core/ble/radio/noble-central';
import type { Advertisement, BleCentral, ScanFilter } from '../../../src/core/ble/port';
import type { ZephyrPeer } from './zephyr-peer';

/** A powered-on central on the peer's btvirt. */
export async function openZephyrCentral(
  peer: ZephyrPeer,
  options: OpenCentralOptions = {},
): Promise<NobleCentral> {
  const opened = await openCentral({ kind: 'unix', path: peer.leSocket }, options);
  if (opened instanceof NoAdapterCentral) throw new Error(`no central on btvirt: ${opened.reason}`);
  await poweredOn(opened);
  return opened;
}

export function poweredOn(central: BleCentral): Promise<void> {
  return new Promise((resolve) => {
    if (central.state() === 'poweredOn') return resolve();
    const off = central.onStateChange((state) => {
      if (state !== 'poweredOn') return;
      off();
      resolve();
    });
  });
}

/** The first advertisement matching `filter` (btvirt reports one per scan), or a timeout. */
export async function findAdvertisement(
  central: BleCentral,
  filter: ScanFilter,
  timeoutMs = 10_000,
): Promise<Advertisement> {
  let found: (ad: Advertisement) => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const seen = new Promise<Advertisement>((resolve, reject) => {
    found = resolve;
    timer = setTimeout(
      () => reject(new Error(`nothing matching ${JSON.stringify(filter)} advertised`)),
      timeoutMs,
    );
  });
  const scan = await central.startScan(filter, (ad) => found(ad));
  try {
    return await seen;
  } finally {
    clearTimeout(timer);
    await scan.stop();
  }
}
