// MCUmgr image upload on the simulated bench, through noble's own HCI stack and the virtual
// controller: throughput over what the link model allows for the same bytes. On the model's
// clock (time moves only when the sim schedules something) the tool's own work takes no time,
// so the ratio measures the protocol's use of the link, the same on a busy machine and an idle
// one. The floor is computed: every Write Without Response of the upload (MTU − 3 bytes of the
// frame, the ATT and L2CAP headers) cut into link-layer PDUs of the adapter's data length, at
// its PDUs per connection event; the answers and the board's processing are what the ratio
// pays for (docs/mcumgr/image.md).
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Benchmark } from './benchmark';
import { table } from './format';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import { DEFAULT_ADAPTER_PROFILE } from '../src/core/ble/sim/adapter-profile';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import { McumgrClient } from '../src/core/ble/mcumgr/client';
import { encodeFrame } from '../src/core/ble/mcumgr/frame';
import { readMcubootImage, type McubootImage } from '../src/core/ble/mcumgr/image-file';
import { uploadImage } from '../src/core/ble/mcumgr/image-group';

const TARGET = 0.8;
const BUFFER_SIZE = 2475;
const IMAGE_BYTES = 64 * 1024;
const MTUS = [23, 185, 247];

/** A signed-looking MCUboot image of `size` payload bytes (header, payload, SHA-256 TLV). */
function image(size: number): McubootImage {
  const header = Buffer.alloc(32);
  header.writeUInt32LE(0x96f3b83d, 0);
  header.writeUInt16LE(32, 8);
  header.writeUInt32LE(size, 12);
  header.writeUInt8(1, 20);
  const payload = Buffer.alloc(size);
  for (let i = 0; i < size; i++) payload[i] = (i * 31) & 0xff;
  const hash = createHash('sha256')
    .update(Buffer.concat([header, payload]))
    .digest();
  const tlv = Buffer.alloc(8);
  tlv.writeUInt16LE(0x6907, 0);
  tlv.writeUInt16LE(40, 2);
  tlv.writeUInt16LE(0x10, 4);
  tlv.writeUInt16LE(32, 6);
  return readMcubootImage(Buffer.concat([header, payload, tlv, hash]));
}

interface Run {
  mtu: number;
  ms: number;
  floorMs: number;
  kBps: number;
  allowedKBps: number;
}

async function uploadOnce(mtu: number, img: McubootImage): Promise<Run> {
  const clock = new ManualSimClock(Date.now());
  const bench = new SimulatedBench({ seed: 1, clock });
  bench.addBoard({
    name: 'Bench MCUmgr',
    address: 'c5:00:00:00:00:01',
    advertising: { intervalMs: 20, rssi: { mean: -55, noise: 0 } },
    latency: { connectMs: 40, perOperationMs: 8, jitterMs: 0 },
    mtu,
    mcumgr: { bufferSize: BUFFER_SIZE, slotSize: 1024 * 1024 },
  });
  const central = createSimulatedCentral(bench);
  const frames: number[] = [];
  const drive = async <T>(promise: Promise<T>): Promise<T> => {
    let done = false;
    const tracked = promise.finally(() => (done = true));
    tracked.catch(() => undefined);
    while (!done) await clock.advance(1);
    return tracked;
  };
  try {
    let id: string | undefined;
    const scan = await drive(central.startScan({}, (ad) => (id ??= ad.id)));
    while (!id) await clock.advance(1);
    await drive(scan.stop());
    const link = await drive(central.connect(id, { mtu }));
    const client = await drive(McumgrClient.open(link, { clock }));
    const start = clock.now();
    await drive(
      uploadImage(client, img, {
        bufferSize: BUFFER_SIZE,
        onProgress: (p) => frames.push(p.offset),
      }),
    );
    const ms = clock.now() - start;
    const floorMs = airTimeMs(img, frames, link.mtu);
    return {
      mtu: link.mtu,
      ms,
      floorMs,
      kBps: img.bytes.length / ms,
      allowedKBps: img.bytes.length / floorMs,
    };
  } finally {
    await drive(central.close());
    bench.close();
  }
}

/** The link-layer time the upload's requests take, from the offsets the board answered. */
function airTimeMs(img: McubootImage, offsets: number[], mtu: number): number {
  const p = DEFAULT_ADAPTER_PROFILE;
  let pdus = 0;
  let from = 0;
  offsets.forEach((to, i) => {
    const shape =
      i === 0
        ? { image: 0, len: img.bytes.length, off: 0, sha: new Uint8Array(32) }
        : { off: from };
    const frame = encodeFrame(
      { op: 2, version: 1, flags: 0, group: 1, sequence: 0, command: 1 },
      { ...shape, data: img.bytes.subarray(from, to) },
    ).length;
    for (let at = 0; at < frame; at += mtu - 3) {
      const fragment = Math.min(mtu - 3, frame - at);
      pdus += Math.ceil((4 + 3 + fragment) / p.dataLength);
    }
    from = to;
  });
  return Math.ceil(pdus / p.pdusPerEvent) * p.connectionIntervalMs;
}

export const mcumgrUpload: Benchmark = {
  name: 'mcumgr-upload',
  summary: `MCUmgr image upload throughput / what the link model allows for it (target >= ${TARGET}) at MTU ${MTUS.join(', ')}`,
  async run(print) {
    const load = loadavg()[0] ?? 0;
    const img = image(IMAGE_BYTES);
    const runs: Run[] = [];
    for (const mtu of MTUS) runs.push(await uploadOnce(mtu, img));
    const p = DEFAULT_ADAPTER_PROFILE;
    print(
      `mcumgr-upload: ${img.bytes.length} bytes over noble's HCI stack and the virtual controller ` +
        `(${p.connectionIntervalMs} ms connection interval, ${p.dataLength}-octet PDUs, ` +
        `${p.pdusPerEvent} per event; board buf_size ${BUFFER_SIZE}, 8 ms per answer); on the ` +
        `model's clock; load average ${load.toFixed(2)}`,
    );
    table([
      ['MTU', 'upload ms', 'kB/s', 'link model ms', 'allowed kB/s', 'ratio'],
      ...runs.map((r) => [
        String(r.mtu),
        r.ms.toFixed(0),
        r.kBps.toFixed(2),
        r.floorMs.toFixed(0),
        r.allowedKBps.toFixed(2),
        (r.floorMs / r.ms).toFixed(3),
      ]),
    ]).forEach((line) => print(line));
    const worst = Math.min(...runs.map((r) => r.floorMs / r.ms));
    print(
      `mcumgr-upload: throughput / link model = ${(Math.floor(worst * 1000) / 1000).toFixed(3)} at worst ` +
        `(target >= ${TARGET}) ${worst >= TARGET ? 'PASS' : 'FAIL'}`,
    );
  },
};
