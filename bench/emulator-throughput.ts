// Emulator throughput on a device-service read, side by side with a bare node:http server
// answering the same bytes: the ratio is how much of Node's own ceiling the emulator keeps.
import { availableParallelism, loadavg } from 'node:os';
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { z } from 'zod';
import { InvalidRunError, type Benchmark } from './benchmark';
import { count, ms, percent, table } from './format';
import { startServerProcess, type ServerProcess } from './server-process';

const PATH = '/things/v1/trial/products';
const PRODUCTS = 3;
const TARGET_RATIO = 0.6;
// Pipelining 1 because the app's client (fetch) never pipelines; 10 connections keep a
// single-threaded server busy without the load generator becoming the bottleneck first.
const CONNECTIONS = 10;
const PIPELINING = 1;
const WARMUP_S = 2;
const MEASURE_S = 5;
// A B B A: each server gets an early and a late slot, so drift in the machine hits both alike.
const ORDER = ['emulator', 'bare', 'bare', 'emulator'] as const;
// Above this the parent, not the server, may be what limits the bare number.
const LOADGEN_SATURATED = 0.9;

type ServerName = (typeof ORDER)[number];
const LABEL: Record<ServerName, string> = { emulator: 'emulator', bare: 'bare node:http' };

const emulatorBanner = z.object({
  url: z.string(),
  channels: z.array(z.object({ channelAccessToken: z.string() })).min(1),
});
const bareBanner = z.object({ url: z.string() });

interface Run {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Share of one core this process spent generating load during the measured part. */
  loadgenCpu: number;
  problems: string[];
}

export const emulatorThroughput: Benchmark = {
  name: 'emulator-throughput',
  summary: `GET ${PATH} on the emulator vs a bare node:http server (target >= ${TARGET_RATIO.toFixed(2)})`,
  async run(print) {
    const servers: ServerProcess[] = [];
    try {
      const emulator = await startServerProcess('emulator', 'src/core/emulator/cli.ts', [
        '--port',
        '0',
        '--host',
        '127.0.0.1',
      ]);
      servers.push(emulator);
      const { url: emulatorUrl, channels } = emulatorBanner.parse(emulator.banner);
      const headers = { authorization: `Bearer ${channels[0]?.channelAccessToken}` };
      for (let i = 1; i <= PRODUCTS; i++)
        await call(emulatorUrl + PATH, headers, { name: `Bench sensor ${i}` });
      const reference = await call(emulatorUrl + PATH, headers);
      const listed = z.array(z.unknown()).safeParse(JSON.parse(reference.body.toString()));
      if (listed.data?.length !== PRODUCTS)
        throw new Error(`GET ${PATH} should list ${PRODUCTS} products: ${reference.body}`);

      const bare = await startServerProcess('bare node:http', 'bench/bare-server.ts', [
        '--body',
        reference.body.toString('base64'),
        '--content-type',
        reference.contentType,
      ]);
      servers.push(bare);
      const { url: bareUrl } = bareBanner.parse(bare.banner);
      const echoed = await call(bareUrl + PATH, headers);
      if (!echoed.body.equals(reference.body) || echoed.contentType !== reference.contentType)
        throw new Error('the bare server does not answer what the emulator answers');

      const urls: Record<ServerName, string> = {
        emulator: emulatorUrl + PATH,
        bare: bareUrl + PATH,
      };
      const runs: Record<ServerName, Run[]> = { emulator: [], bare: [] };
      // Other work on the machine skews both servers; the reader needs it to judge the numbers.
      const loadBefore = loadavg()[0] ?? 0;
      for (const name of ORDER) runs[name].push(await measure(urls[name], headers));

      print(
        `emulator-throughput: GET ${PATH} (${PRODUCTS} products, ${reference.body.length} B); ` +
          `${CONNECTIONS} connections, pipelining ${PIPELINING}; per run ${WARMUP_S} s warm-up + ` +
          `${MEASURE_S} s measured; order ${ORDER.map((n) => n[0]?.toUpperCase()).join(' ')}; ` +
          'best run per server',
      );
      print(
        `emulator-throughput: load average ${loadBefore.toFixed(2)} on ` +
          `${availableParallelism()} cores at start`,
      );
      const problems = (['emulator', 'bare'] as const).flatMap((name) =>
        runs[name].flatMap((r, i) => r.problems.map((p) => `${LABEL[name]} run ${i + 1} ${p}`)),
      );
      if (problems.length) throw new InvalidRunError(problems.join('; '));

      const best = { emulator: fastest(runs.emulator), bare: fastest(runs.bare) };
      const rows = [['server', 'req/s', 'p50 ms', 'p99 ms', 'all runs req/s', 'loadgen cpu']];
      for (const name of ['emulator', 'bare'] as const)
        rows.push([
          LABEL[name],
          count(best[name].requestsPerSecond),
          ms(best[name].p50),
          ms(best[name].p99),
          runs[name].map((r) => count(r.requestsPerSecond)).join(' / '),
          percent(best[name].loadgenCpu),
        ]);
      table(rows).forEach((line) => print(line));

      if (best.bare.loadgenCpu >= LOADGEN_SATURATED)
        print(
          `emulator-throughput: note: the load generator used ${percent(best.bare.loadgenCpu)} of ` +
            'a core against bare node:http, so the ceiling may be understated',
        );
      // Floored so the printed ratio never reads as passing when the exact one does not.
      const ratio = best.emulator.requestsPerSecond / best.bare.requestsPerSecond;
      print(
        `emulator-throughput: emulator / bare node:http = ${(Math.floor(ratio * 100) / 100).toFixed(2)} ` +
          `(target >= ${TARGET_RATIO.toFixed(2)}) ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}`,
      );
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  },
};

/** One warm-up (its numbers dropped, its errors not) and one measured autocannon run. */
async function measure(url: string, headers: Record<string, string>): Promise<Run> {
  const warmup = await load(url, headers, WARMUP_S);
  // autocannon's own latency histogram holds whole milliseconds, too coarse for loopback.
  const latencyUs = createHistogram();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await load(url, headers, MEASURE_S, (responseMs) =>
    latencyUs.record(Math.max(1, Math.round(responseMs * 1000))),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const wallUs = (performance.now() - started) * 1000;
  return {
    requestsPerSecond: result.requests.average,
    p50: latencyUs.percentile(50) / 1000,
    p99: latencyUs.percentile(99) / 1000,
    loadgenCpu: (cpu.user + cpu.system) / wallUs,
    problems: [...problemsOf('warm-up', warmup), ...problemsOf('measure', result)],
  };
}

function load(
  url: string,
  headers: Record<string, string>,
  duration: number,
  onResponse?: (responseMs: number) => void,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url, headers, duration, connections: CONNECTIONS, pipelining: PIPELINING },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (onResponse) instance.on('response', (_client, _status, _bytes, ms) => onResponse(ms));
  });
}

/** Anything but a 200 for every request makes the run's numbers meaningless. */
function problemsOf(phase: string, result: autocannon.Result): string[] {
  const problems: string[] = [];
  const other = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => status !== '200')
    .map(([status, { count: n }]) => `${n ?? 0}× ${status}`);
  if (other.length || result.non2xx)
    problems.push(
      `${phase}: ${result.non2xx} non-2xx (${other.join(', ') || 'no status breakdown'})`,
    );
  if (result.errors)
    problems.push(`${phase}: ${result.errors} errors, ${result.timeouts} of them timeouts`);
  if (result.requests.total === 0) problems.push(`${phase}: no responses at all`);
  return problems;
}

// The least disturbed run is the best estimate of capacity: interference only ever slows a run.
function fastest(runs: Run[]): Run {
  return runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
}

/** GET, or POST when given a JSON body; anything but a 200 is a broken setup, not a result. */
async function call(
  url: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<{ body: Buffer; contentType: string }> {
  const response = await fetch(url, {
    method: json === undefined ? 'GET' : 'POST',
    headers: json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200)
    throw new Error(
      `${json === undefined ? 'GET' : 'POST'} ${url} answered ${response.status}: ${body}`,
    );
  return { body, contentType: response.headers.get('content-type') ?? '' };
}
