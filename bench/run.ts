// `npm run bench [-- <name> ...]`: runs the named benchmarks, or all of them, in order, each
// printing its own lines. PASS and FAIL are both reports (exit 0); a benchmark that could not
// measure, because it crashed or its run was invalid, makes the exit code 1.
import { adapters } from './adapters';
import { auditExport } from './audit-export';
import { InvalidRunError, type Benchmark } from './benchmark';
import { auditScale } from './audit-scale';
import { emulatorThroughput } from './emulator-throughput';
import { flashProvision } from './flash-provision';
import { bleScan } from './ble-scan';
import { line } from './line';
import { mcumgrUpload } from './mcumgr-upload';
import { provisioning } from './provisioning';
import { provisioningSecure } from './provisioning-secure';
import { pairing } from './pairing';
import { scenarioOverhead, scenarioSleep } from './scenario';
import { transport } from './transport';

const BENCHMARKS: Benchmark[] = [
  emulatorThroughput,
  bleScan,
  provisioning,
  provisioningSecure,
  pairing,
  adapters,
  line,
  auditScale,
  auditExport,
  scenarioSleep,
  scenarioOverhead,
  transport,
  mcumgrUpload,
  flashProvision,
];

// A signal would otherwise end the process without 'exit' listeners, the ones that kill children.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

function usage(): string {
  const width = Math.max(...BENCHMARKS.map((b) => b.name.length));
  return [
    'usage: npm run bench [-- <name> ... [--<flag> <value> ...]]',
    ...BENCHMARKS.map((b) => `  ${b.name.padEnd(width)}  ${b.summary}`),
  ].join('\n');
}

async function main(args: string[]): Promise<number> {
  const names: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = args[i + 1];
    if (arg.startsWith('--') && arg !== '--help') {
      if (value === undefined || value.startsWith('--')) {
        process.stderr.write(`bench: ${arg} needs a value (${arg} <value>)\n${usage()}\n`);
        return 2;
      }
      flags[arg.slice(2)] = value;
      i++;
    } else names.push(arg);
  }
  if (names.includes('-h') || names.includes('--help')) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  const unknown = names.filter((name) => !BENCHMARKS.some((b) => b.name === name));
  if (unknown.length) {
    process.stderr.write(`bench: no benchmark named ${unknown.join(', ')}\n${usage()}\n`);
    return 2;
  }
  const print = (line: string) => process.stdout.write(line + '\n');
  let failed = 0;
  for (const benchmark of BENCHMARKS.filter((b) => !names.length || names.includes(b.name))) {
    try {
      await benchmark.run(print, flags);
    } catch (err) {
      failed++;
      print(
        err instanceof InvalidRunError
          ? `${benchmark.name}: INVALID: ${err.message}`
          : `${benchmark.name}: ERROR: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
    }
  }
  return failed ? 1 : 0;
}

/**
 * Ends the run once what was printed is out: noble's HCI layer polls its socket every second for
 * as long as the process lives (`pollIsDevUp` in lib/hci-socket/hci.js; closing the central does
 * not stop it), so a run that used a simulated central would otherwise never end.
 */
function exit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exit, (err: unknown) => {
  process.stderr.write(`bench: ${String(err)}\n`);
  exit(1);
});
