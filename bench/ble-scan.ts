// A scan of a crowded bench: 500 simulated boards advertising at 10 Hz, each advertisement an
// HCI LE Advertising Report (ADV_IND, then SCAN_RSP) from the virtual controller through
// noble's own HCI stack and the tap, heard by one scan subscriber. Reports what share of the
// advertisements on the air reached the subscriber and what share of a core it cost.
import { loadavg } from 'node:os';
import { InvalidRunError, type Benchmark } from './benchmark';
import { count, percent, table } from './format';
import { createSimulatedCentral } from '../src/core/ble/radio/sim-central';
import { SimulatedBench } from '../src/core/ble/sim/bench';

const BOARDS = 500;
const INTERVAL_MS = 100;
const WARMUP_S = 1;
const MEASURE_S = 5;
const TARGET_DELIVERY = 0.95;
/** Share of one core the whole path (sim, noble, adapter) may take for 5,000 advertisements/s. */
const TARGET_CPU = 0.5;

export const bleScan: Benchmark = {
  name: 'ble-scan',
  summary: `scan ${BOARDS} simulated boards at ${1000 / INTERVAL_MS} Hz through noble (delivery >= ${TARGET_DELIVERY}, cpu <= ${TARGET_CPU} core)`,
  async run(print) {
    const bench = new SimulatedBench({ seed: 1 });
    bench.addBoard({
      name: 'Bench {n}',
      count: BOARDS,
      address: 'c3:00:00:00:00:01',
      advertising: { intervalMs: INTERVAL_MS, rssi: { mean: -60, noise: 4 } },
      provisioning: { profile: 'devicebench-v1' },
    });
    const central = createSimulatedCentral(bench);
    try {
      let delivered = 0;
      const heard = new Set<string>();
      const scan = await central.startScan({}, (ad) => {
        delivered++;
        heard.add(ad.id);
      });
      await sleep(WARMUP_S * 1000);
      if (heard.size !== BOARDS)
        throw new InvalidRunError(
          `only ${heard.size} of ${BOARDS} boards were heard during warm-up`,
        );

      const loadBefore = loadavg()[0] ?? 0;
      const startDelivered = delivered;
      const startWall = process.hrtime.bigint();
      const startCpu = process.cpuUsage();
      await sleep(MEASURE_S * 1000);
      const cpu = process.cpuUsage(startCpu);
      const wallS = Number(process.hrtime.bigint() - startWall) / 1e9;
      const got = delivered - startDelivered;
      await scan.stop();

      const expectedPerS = (BOARDS * 1000) / INTERVAL_MS;
      const deliveredPerS = got / wallS;
      const delivery = deliveredPerS / expectedPerS;
      const cpuShare = (cpu.user + cpu.system) / 1e6 / wallS;
      print(
        `ble-scan: ${BOARDS} boards at ${INTERVAL_MS} ms through HCI advertising reports and noble's HCI stack, one scan ` +
          `subscriber, ${WARMUP_S} s warm-up + ${wallS.toFixed(1)} s measured; load average ` +
          `${loadBefore.toFixed(2)} at start`,
      );
      table([
        ['', 'per second', 'ratio'],
        ['advertisements on the air', count(expectedPerS), ''],
        [
          'delivered to the subscriber',
          count(deliveredPerS),
          (Math.floor(delivery * 100) / 100).toFixed(2),
        ],
        ['cpu (user + system)', `${(cpuShare * 1000).toFixed(0)} ms`, percent(cpuShare)],
        ['cpu per 1,000 advertisements', `${((cpuShare * 1e6) / deliveredPerS).toFixed(0)} ms`, ''],
      ]).forEach((line) => print(line));
      const pass = delivery >= TARGET_DELIVERY && cpuShare <= TARGET_CPU;
      print(
        `ble-scan: delivered / expected = ${(Math.floor(delivery * 100) / 100).toFixed(2)} ` +
          `(target >= ${TARGET_DELIVERY}), cpu = ${cpuShare.toFixed(2)} core ` +
          `(target <= ${TARGET_CPU}) ${pass ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      await central.close();
      bench.close();
    }
  },
};

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
