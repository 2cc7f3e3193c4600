// MCUmgr image upload on the simulated bench, through noble's own HCI stack and the virtual
// controller: throughput over what the link model allows for the same bytes. On the model's
// clock (time moves only when the sim schedules something) the tool's own work takes no time,
// so the ratio measures the protocol's use of the link, the same on a busy machine and an idle
// one. The upload asks for its link and its window as `flashImage` does (linkForUpload, the
// board's buffers); its rows are the default dongle at three MTUs and a controller with Data
// Length Extension and the 2M PHY. The floor is computed: every Write Without Response of the
// upload (MTU − 3 bytes of the frame, the ATT and L2CAP headers) cut into link-layer PDUs of
// the data length the link got, packed into connection events as the link model packs them
// (link-airtime.ts: the controller's PDUs per event, the interval's air time on the PHY the link
// got); the answers and the board's processing are what the ratio pays for
// (docs/mcumgr/image.md, docs/decisions/simulated-bench.md).
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Benchmark } from './benchmark';
import { table } from './format';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import {
  adapterProfileSchema,
  type AdapterProfile,
  type AdapterProfileInput,
} from '../src/core/ble/sim/adapter-profile';
import { eventsFor } from '../src/core/ble/sim/link-airtime';
import { linkForUpload } from '../src/core/ble/mcumgr/upload-link';
import type { UploadLink } from '../src/core/ble/mcumgr/upload-link-info';
import { uploadBuffers } from '../src/core/usecases/firmware';
import { uploadLinkWords } from '../src/core/usecases/upload-link-words';
import type { LinkInfo } from '../src/core/ble/link-parameters';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import { McumgrClient } from '../src/core/ble/mcumgr/client';
import { encodeFrame } from '../src/core/ble/mcumgr/frame';
import { readMcubootImage, type McubootImage } from '../src/core/ble/mcumgr/image-file';
import { uploadImage } from '../src/core/ble/mcumgr/image-group';

const TARGET = 0.8;
/** The row on a controller with Data Length Extension and 2M: its ratio, and its model's rate. */
const FAST_TARGET = 0.9;
const FAST_ALLOWED_KBPS = 60;
const BUFFER_SIZE = 2475;
const IMAGE_BYTES = 64 * 1024;

/**
 * A controller with Data Length Extension (251-octet PDUs and ACL buffers) and the 2M PHY that
 * takes the shortest interval and up to 8 exchanges an event, as an nRF52840 dongle running
 * Zephyr's hci_usb; the interval's air time bounds the exchanges too (link-airtime.ts).
 */
const DLE_2M_ADAPTER: AdapterProfileInput = {
  dataLength: 251,
  aclBufferSize: 251,
  connectionIntervalMs: 7.5,
  pdusPerEvent: 8,
};

interface Row {
  adapter: string;
  profile: AdapterProfileInput;
  mtu: number;
  target: number;
}

const ROWS: Row[] = [
  ...[23, 185, 247].map((mtu) => ({ adapter: 'default', profile: {}, mtu, target: TARGET })),
  { adapter: 'DLE + 2M', profile: DLE_2M_ADAPTER, mtu: 247, target: FAST_TARGET },
];

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
  row: Row;
  link: UploadLink;
  mtu: number;
  ms: number;
  floorMs: number;
  kBps: number;
  allowedKBps: number;
}

async function uploadOnce(row: Row, img: McubootImage): Promise<Run> {
  const { mtu } = row;
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
  const central = createSimulatedCentral(bench, { adapter: row.profile });
  const profile = adapterProfileSchema.parse(row.profile);
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
    const asked = await drive(linkForUpload(link));
    const { bufferSize, window } = await drive(uploadBuffers(client));
    client.setWindow(window);
    const start = clock.now();
    await drive(
      uploadImage(client, img, {
        bufferSize,
        onProgress: (p) => frames.push(p.offset),
      }),
    );
    const ms = clock.now() - start;
    const info = link.linkInfo?.();
    if (!info) throw new Error('the link shows no parameters');
    const floorMs = airTimeMs(img, frames, link.mtu, profile, info);
    return {
      row,
      link: { ...asked.link, window },
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
function airTimeMs(
  img: McubootImage,
  offsets: number[],
  mtu: number,
  profile: AdapterProfile,
  link: LinkInfo,
): number {
  // The controller cuts each host ACL packet into PDUs: at most its ACL buffer, its data length.
  const pdu = Math.min(profile.aclBufferSize, link.dataLength ?? 27);
  const payloads: number[] = [];
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
      // The write's L2CAP frame: its header (4), the ATT header (3), the fragment.
      let rest = 4 + 3 + Math.min(mtu - 3, frame - at);
      for (; rest > 0; rest -= pdu) payloads.push(Math.min(pdu, rest));
    }
    from = to;
  });
  const events = eventsFor(payloads, {
    intervalMs: link.intervalMs,
    pdusPerEvent: profile.pdusPerEvent,
    txPhy: link.txPhy,
    rxPhy: link.rxPhy,
  });
  return events * link.intervalMs;
}

export const mcumgrUpload: Benchmark = {
  name: 'mcumgr-upload',
  summary: `MCUmgr image upload throughput / what the link model allows for it (target >= ${TARGET}) at MTU 23, 185, 247 on the default dongle; >= ${FAST_TARGET} on a DLE + 2M controller whose model allows >= ${FAST_ALLOWED_KBPS} kB/s`,
  async run(print) {
    const load = loadavg()[0] ?? 0;
    const img = image(IMAGE_BYTES);
    const runs: Run[] = [];
    for (const row of ROWS) runs.push(await uploadOnce(row, img));
    const p = adapterProfileSchema.parse({});
    print(
      `mcumgr-upload: ${img.bytes.length} bytes over noble's HCI stack and the virtual controller; ` +
        `default dongle: ${p.connectionIntervalMs} ms interval, ${p.dataLength}-octet PDUs, ` +
        `${p.pdusPerEvent} per event; DLE + 2M: ${DLE_2M_ADAPTER.connectionIntervalMs} ms, ` +
        `${DLE_2M_ADAPTER.dataLength}-octet PDUs, ${DLE_2M_ADAPTER.pdusPerEvent} per event at most; ` +
        `board buf_size ${BUFFER_SIZE}, 8 ms per answer; on the model's clock; load average ${load.toFixed(2)}`,
    );
    table([
      ['adapter', 'MTU', 'link', 'upload ms', 'kB/s', 'link model ms', 'allowed kB/s', 'ratio'],
      ...runs.map((r) => [
        r.row.adapter,
        String(r.mtu),
        uploadLinkWords(r.link),
        r.ms.toFixed(0),
        r.kBps.toFixed(2),
        r.floorMs.toFixed(0),
        r.allowedKBps.toFixed(2),
        (r.floorMs / r.ms).toFixed(3),
      ]),
    ]).forEach((line) => print(line));
    const floor3 = (x: number) => (Math.floor(x * 1000) / 1000).toFixed(3);
    const defaults = runs.filter((r) => r.row.target === TARGET);
    const worst = Math.min(...defaults.map((r) => r.floorMs / r.ms));
    print(
      `mcumgr-upload: throughput / link model = ${floor3(worst)} at worst on the default dongle ` +
        `(target >= ${TARGET}) ${worst >= TARGET ? 'PASS' : 'FAIL'}`,
    );
    for (const r of runs.filter((x) => x.row.target === FAST_TARGET)) {
      const ratio = r.floorMs / r.ms;
      const pass = ratio >= FAST_TARGET && r.allowedKBps >= FAST_ALLOWED_KBPS;
      print(
        `mcumgr-upload: ${r.row.adapter}: throughput / link model = ${floor3(ratio)} ` +
          `(target >= ${FAST_TARGET}), the model allows ${r.allowedKBps.toFixed(1)} kB/s ` +
          `(target >= ${FAST_ALLOWED_KBPS}) ${pass ? 'PASS' : 'FAIL'}`,
      );
    }
  },
};
