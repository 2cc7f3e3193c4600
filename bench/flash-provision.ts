// A batch that flashes then provisions stock Zephyr boards (MCUmgr, the settings profile) on the
// simulated bench, through noble's own HCI stack and the virtual controller: boards per minute
// at 1, 2 and 4 links, each over what the link model allows. The floor is computed, not timed:
// one board flashed (upload, test, reset, confirm) and provisioned (settings written, saved,
// reset, read back) on a clock that moves only while the tool waits on the bench
// (bench/provisioning-model.ts), so it counts connection events × interval, the board's answers,
// its reboots and its advertising, and reads the same on a busy machine as on an idle one; n
// links allow n boards in that time.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { InvalidRunError, type Benchmark } from './benchmark';
import { ms, percent, table } from './format';
import { PRODUCT, provisionEach, type ModelRun } from './provisioning-model';
import { openAuditStore } from '../src/core/audit/open-store';
import { readMcubootImage, type McubootImage } from '../src/core/ble/mcumgr/image-file';
import { MCUMGR_SERVICE_UUID } from '../src/core/ble/mcumgr/service';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import type { McumgrSettingsProfile } from '../src/core/ble/provisioning-profile';
import { DEFAULT_ADAPTER_PROFILE } from '../src/core/ble/sim/adapter-profile';
import { SimulatedBench } from '../src/core/ble/sim/bench';
import type { BoardSpecInput } from '../src/core/ble/sim/board-schema';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';
import { startBatch } from '../src/core/provisioning/batch';
import { builtInProfiles } from '../src/core/provisioning/profiles';
import { createPsdiAllocator } from '../src/core/audit/psdi';
import { imageFlash } from '../src/core/usecases/firmware';

const IMAGE_BYTES = 16 * 1024;
const MODEL_BOARDS = 3;
const BATCH_BOARDS = 8;
const LINKS = [1, 2, 4];
const RESET_MS = 200;

function settingsProfile(): McumgrSettingsProfile {
  const profile = builtInProfiles().find((p) => p.id === 'zephyr-mcumgr-settings');
  if (profile?.kind !== 'mcumgr-settings')
    throw new Error('the zephyr-mcumgr-settings profile is missing');
  return profile;
}

/** A signed-looking MCUboot image of `size` payload bytes (header, payload, SHA-256 TLV). */
function image(size: number): McubootImage {
  const header = Buffer.alloc(32);
  header.writeUInt32LE(0x96f3b83d, 0);
  header.writeUInt16LE(32, 8);
  header.writeUInt32LE(size, 12);
  header.writeUInt8(2, 20);
  const payload = Buffer.from(Uint8Array.from({ length: size }, (_, i) => (i * 29) & 0xff));
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

/** A stock Zephyr board as the default bench's, no jitter: the model's time of a path is exact. */
function zephyr(address: string, count: number): BoardSpecInput {
  return {
    name: 'Bench Zephyr {n}',
    address,
    count,
    advertising: {
      serviceUuids: [MCUMGR_SERVICE_UUID],
      intervalMs: 100,
      rssi: { mean: -55, noise: 0 },
    },
    latency: { connectMs: 40, perOperationMs: 8, jitterMs: 0 },
    mtu: 247,
    mcumgr: { resetMs: RESET_MS, identityKeys: settingsProfile().keys },
  };
}

async function onStore<T>(
  dir: string,
  label: string,
  use: (store: Awaited<ReturnType<typeof openAuditStore>>) => Promise<T>,
): Promise<T> {
  const store = await openAuditStore({
    location: { kind: 'local', file: join(dir, `${label}.db`) },
    station: 'bench',
  });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

async function measureBatch(dir: string, img: McubootImage, links: number): Promise<number> {
  const bench = new SimulatedBench({ seed: links });
  bench.addBoard(zephyr('c6:00:00:00:00:01', BATCH_BOARDS));
  const central = createSimulatedCentral(bench);
  try {
    return await onStore(dir, `batch-${links}`, async (store) => {
      const summary = await startBatch({
        central,
        store,
        profile: settingsProfile(),
        product: PRODUCT,
        psdi: createPsdiAllocator({ kind: 'sequence', prefix: 'F-', width: 4 }, 20),
        concurrency: links,
        idleMs: 300,
        flash: imageFlash(central, img),
      }).done;
      if (summary.ok !== BATCH_BOARDS)
        throw new InvalidRunError(
          `${links} links: ${summary.ok} of ${BATCH_BOARDS} boards flashed and verified, ${summary.failed} failed`,
        );
      return summary.boardsPerMinute;
    });
  } finally {
    await central.close();
    bench.close();
  }
}

export const flashProvision: Benchmark = {
  name: 'flash-provision',
  summary: `boards flashed then provisioned (MCUmgr settings) per minute at ${LINKS.join(', ')} links, over what the link model allows`,
  async run(print) {
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-flash-'));
    try {
      const load = loadavg()[0] ?? 0;
      const img = image(IMAGE_BYTES);
      const run: ModelRun = {
        board: zephyr,
        profile: settingsProfile(),
        flash: (central) => imageFlash(central, img),
      };
      const model = await onStore(dir, 'model', (store) =>
        provisionEach(store, new ManualSimClock(Date.now()), MODEL_BOARDS, run),
      );
      const perBoard = Math.min(...model.map((m) => m.ms));
      const batches: { links: number; perMinute: number; allowed: number }[] = [];
      for (const links of LINKS)
        batches.push({
          links,
          perMinute: await measureBatch(dir, img, links),
          allowed: (links * 60_000) / perBoard,
        });
      const p = DEFAULT_ADAPTER_PROFILE;
      print(
        `flash-provision: ${img.bytes.length}-byte image, then zephyr-mcumgr-settings, over noble's ` +
          `HCI stack and the virtual controller (${p.connectionIntervalMs} ms connection interval, ` +
          `${p.pdusPerEvent} PDUs per event; boards: connect 40 ms, 8 ms per answer, reset ` +
          `${RESET_MS} ms, advertising every 100 ms, no jitter); load average ${load.toFixed(2)} at start`,
      );
      print(
        `flash-provision: link model per board ${ms(perBoard)} ms (${model[0]?.events ?? 0} connection events ` +
          `carrying data), on the model's clock`,
      );
      table([
        ['links', 'boards/min', 'link model boards/min', 'of the model'],
        ...batches.map((b) => [
          String(b.links),
          b.perMinute.toFixed(1),
          b.allowed.toFixed(1),
          percent(b.perMinute / b.allowed),
        ]),
      ]).forEach((line) => print(line));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
