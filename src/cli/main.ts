// `devicebench`: the bench's operations headless, for firmware CI (docs/decisions.md, "Command
// line"). Thin: yargs parses, zod checks, the same core the app uses does the work, and the exit
// code tells CI what happened (0 passed, 1 failed, 2 bad usage or input, 3 environment, 130
// Ctrl-C).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { ADAPTER_FORMS } from '../core/ble/adapter-spec';
import { RESOURCES_DIR } from '../core/resources';
import type { Runner } from './command';
import { auditCommand } from './commands/audit';
import { firmwareCommand } from './commands/firmware';
import { bondsCommand } from './commands/bonds';
import { provisionCommand } from './commands/provision';
import { scanCommand } from './commands/scan';
import { scenarioCommand } from './commands/scenario';
import { settingsCommand } from './commands/settings';
import { simCommand } from './commands/sim';
import { traceCommand } from './commands/trace';
import { verifyCommand } from './commands/verify';
import { catchEscapes, reportFailure } from './error-boundary';
import { EXIT, UsageError, type ExitCode } from './exit';
import { checkGlobalFlags } from './global-checks';
import { Output } from './output';
import { Session } from './session';

/** The desktop app's data folder (Electron's user-data folder for "DeviceBench"). */
function appDataDir(): string {
  if (process.env.DEVICEBENCH_DATA_DIR) return process.env.DEVICEBENCH_DATA_DIR;
  if (process.platform === 'darwin')
    return join(homedir(), 'Library', 'Application Support', 'DeviceBench');
  if (process.platform === 'win32')
    return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'DeviceBench');
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'DeviceBench');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(RESOURCES_DIR, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function buildParser(args: string[], runner: Runner): Argv {
  return yargs(args)
    .scriptName('devicebench')
    .usage('$0 <command> [options]')
    .option('adapter', {
      type: 'string',
      array: true,
      describe: `an adapter to open, repeatable for several at once: ${ADAPTER_FORMS}`,
      defaultDescription: 'DEVICEBENCH_ADAPTER (comma-separated), else sim',
      global: true,
    })
    .option('bench', { type: 'string', hidden: true, global: true })
    .middleware((argv) => {
      if (argv.bench !== undefined)
        throw new UsageError(
          '--bench',
          'was replaced by --adapter <spec>: --adapter sim for the simulated bench, --adapter hci0 (Linux kernel adapter), --adapter serial:<port> for an HCI dongle or --adapter native for the system’s Bluetooth',
        );
    }, true)
    .option('sim-boards', {
      type: 'string',
      array: true,
      describe: 'board files that replace the default simulated bench',
      global: true,
    })
    .option('env', {
      type: 'string',
      describe:
        'an environment from Settings, by name (secrets from the keychain); default: DEVICEBENCH_BASE_URL & co., else the embedded emulator',
      global: true,
    })
    .option('data-dir', {
      type: 'string',
      default: appDataDir(),
      defaultDescription: 'the app’s data folder, or DEVICEBENCH_DATA_DIR',
      describe: 'where the audit log, emulator state and settings live',
      global: true,
    })
    .option('station', {
      type: 'string',
      default: process.env.DEVICEBENCH_STATION,
      defaultDescription: 'DEVICEBENCH_STATION, else the host name',
      describe: 'station name recorded on audit records and dry runs',
      global: true,
    })
    .option('io-capability', {
      type: 'string',
      choices: [
        'displayOnly',
        'displayYesNo',
        'keyboardOnly',
        'noInputNoOutput',
        'keyboardDisplay',
      ],
      defaultDescription: 'keyboardOnly with --passkey or --passkey-env, else noInputNoOutput',
      describe: 'what the station claims when it pairs; anything but noInputNoOutput asks for MITM',
      global: true,
    })
    .option('passkey', {
      type: 'string',
      describe: 'the six digits the board shows, when pairing needs them typed',
      global: true,
    })
    .option('passkey-env', {
      type: 'string',
      describe: 'the environment variable holding the board’s passkey (for CI)',
      global: true,
    })
    .option('bond', {
      type: 'boolean',
      default: true,
      describe: 'keep the board’s keys after pairing (--no-bond pairs for this link only)',
      global: true,
    })
    .command(scanCommand(runner))
    .command(provisionCommand(runner))
    .command(verifyCommand(runner))
    .command(scenarioCommand(runner))
    .command(auditCommand(runner))
    .command(traceCommand(runner))
    .command(simCommand(runner))
    .command(firmwareCommand(runner))
    .command(settingsCommand(runner))
    .command(bondsCommand(runner))
    .completion('completion', 'print a bash/zsh completion script')
    .demandCommand(1, 'name a command (devicebench --help lists them)')
    .strict()
    .version(version())
    .help()
    .alias('help', 'h')
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message, err) => {
      throw err ?? new UsageError(undefined, message);
    });
}

async function main(): Promise<ExitCode> {
  let code: ExitCode = EXIT.ok;
  const runner: Runner = async (flags, run) => {
    const out = new Output(flags.json === true);
    const interrupt = new AbortController();
    const onSigint = () => {
      if (interrupt.signal.aborted) {
        out.error(
          'Stopped without waiting: unfinished records are offered by `devicebench audit reconcile`.',
        );
        process.exit(EXIT.interrupted);
      }
      out.note('Stopping safely (Ctrl-C again to abandon)…');
      interrupt.abort();
    };
    process.on('SIGINT', onSigint);
    const session = new Session({
      dataDir: flags.dataDir,
      adapters: flags.adapters,
      simBoards: flags.simBoards,
      env: flags.env,
      station: flags.station,
      onNotice: (text) => out.note(text),
      pairing: flags.pairing,
    });
    try {
      await checkGlobalFlags(flags);
      code = await run({ session, out, interrupt: interrupt.signal });
    } catch (err) {
      code = reportFailure(err, (line) => out.error(line));
    } finally {
      await session.close();
      process.off('SIGINT', onSigint);
    }
    if (interrupt.signal.aborted) code = EXIT.interrupted;
  };
  try {
    await buildParser(hideBin(process.argv), runner).parseAsync();
  } catch (err) {
    return reportFailure(err, writeError);
  }
  return code;
}

const writeError = (line: string) => process.stderr.write(`${line}\n`);
catchEscapes(writeError);

// Nothing left to wait for while a command is unfinished is a bug, never a pass.
const onDrained = () => {
  process.stderr.write(
    'devicebench: stopped before the command finished (nothing left to wait for)\n',
  );
  process.exit(EXIT.failed);
};
process.once('beforeExit', onDrained);

void main().then((code) => {
  process.off('beforeExit', onDrained);
  // Open handles (the emulator, noble's timers) must not keep a finished command alive.
  process.stdout.write('', () => process.exit(code));
});
