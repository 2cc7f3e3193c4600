// `npm run emulator -- --port <n> [--host <h>] [--data <file>] [--allow-host <name>…]`: the
// platform emulator on its own, for scripts and other projects. Prints one JSON line with its
// URLs and seeded channels. It answers loopback Host names, the address it listens on, and
// each --allow-host name (docs/decisions.md, "Hardening").
import { parseArgs } from 'node:util';
import { errorMessage } from '../errors/message';
import { startEmulator } from './server';

const USAGE =
  'usage: npm run emulator -- [--port <n>] [--host <address>] [--data <file.sqlite>] [--allow-host <name>]…';
const WILDCARDS = ['0.0.0.0', '::'];

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '0' },
        host: { type: 'string', default: '127.0.0.1' },
        data: { type: 'string' },
        'allow-host': { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port must be a whole number from 0 to 65535, not "${values.port}"`);

  const listening = WILDCARDS.includes(values.host)
    ? []
    : [values.host.includes(':') ? `[${values.host}]` : values.host];
  const emulator = await startEmulator({
    port,
    host: values.host,
    dataFile: values.data,
    allowedHostnames: [...listening, ...values['allow-host']].map((h) => h.toLowerCase()),
  });
  process.stdout.write(
    JSON.stringify({
      url: emulator.url,
      adminUrl: emulator.adminUrl,
      channels: emulator.channels().map(({ channelId, channelSecret, channelAccessToken }) => ({
        channelId,
        channelSecret,
        channelAccessToken,
      })),
    }) + '\n',
  );

  const stop = () => {
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => fail(`error while stopping: ${String(err)}`),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function fail(message: string): never {
  process.stderr.write(`emulator: ${message}\n`);
  process.exit(2);
}

main().catch((err: unknown) => fail(errorMessage(err)));
