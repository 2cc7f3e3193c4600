// One board provisioned as a phone-facing product needs it, on the simulated bench: the board
// speaks LE Secure Connections, shows a fixed passkey and keeps bonds (as a Zephyr board built
// for phones); the profile needs level 4, so the station pairs with the passkey before the PSDI
// is reserved, and verify after the reboot encrypts with the bond. Overhead as in
// bench/provisioning.ts: the tool's wall time over the link model's time for the same path, the
// model now holding the SMP exchange's connection events and both encryption procedures.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark } from './benchmark';
import { ms, table } from './format';
import { provisionEach, secureRun } from './provisioning-model';
import { median, onStore, preciseClock } from './provisioning';
import { DEFAULT_ADAPTER_PROFILE } from '../src/core/ble/sim/adapter-profile';
import { ManualSimClock } from '../src/core/ble/sim/manual-clock';

const TARGET_OVERHEAD = 1.1;
const BOARDS = 6;

export const provisioningSecure: Benchmark = {
  name: 'provisioning-sc',
  summary: `one SC-bonded board (passkey, level 4) provisioned: tool time / the link model's time, SMP included (target <= ${TARGET_OVERHEAD})`,
  async run(print) {
    const dir = mkdtempSync(join(tmpdir(), 'devicebench-bench-prov-sc-'));
    try {
      const loadBefore = loadavg()[0] ?? 0;
      const model = await onStore(dir, 'model', (store) =>
        provisionEach(store, new ManualSimClock(Date.now()), BOARDS, secureRun()),
      );
      const real = await onStore(dir, 'real', (store) =>
        provisionEach(store, preciseClock(), BOARDS, secureRun()),
      );
      const interval = DEFAULT_ADAPTER_PROFILE.connectionIntervalMs;
      print(
        `provisioning-sc: devicebench-v1 at level 4 — SC Passkey Entry (the board shows a fixed ` +
          `passkey, the station types it), bonded, verify over the bond; ${interval} ms ` +
          `connection interval; audit store on disk; load average ${loadBefore.toFixed(2)} at start`,
      );
      const rows = real.map((r, i) => {
        const m = model[i]!;
        return { toolMs: r.ms, modelMs: m.ms, securityMs: m.securityMs, ratio: r.ms / m.ms };
      });
      table([
        [
          'board',
          'tool ms',
          'link model ms',
          'of it SMP + encryption ms',
          'connection events',
          'ratio',
        ],
        ...rows.map((row, i) => [
          String(i + 1),
          ms(row.toolMs),
          ms(row.modelMs),
          ms(row.securityMs),
          (row.securityMs / interval).toFixed(0),
          row.ratio.toFixed(3),
        ]),
      ]).forEach((line) => print(line));
      const ratios = rows.map((row) => row.ratio);
      const typical = median(ratios);
      const shown = (n: number) => (Math.ceil(n * 1000) / 1000).toFixed(3);
      print(
        `provisioning-sc: tool / link model time = ${shown(typical)} median, ${shown(Math.min(...ratios))} best, ` +
          `${shown(Math.max(...ratios))} worst of ${BOARDS} boards (target <= ${TARGET_OVERHEAD} for the median) ` +
          `${typical <= TARGET_OVERHEAD ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
