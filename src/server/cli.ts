// `npm run web`: the app in a browser. Starts the bench server (with the embedded emulator)
// on 127.0.0.1 and prints the address to open.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openKeychain } from '../core/secrets/keychain';
import { startBenchServer } from './bench-server';

const USAGE = 'usage: npm run web -- [--port <n>] [--data-dir <folder>]';
const DEFAULT_PORT = 4780;

function fail(message: string): never {
  process.stderr.write(`devicebench web: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: String(DEFAULT_PORT) },
        'data-dir': { type: 'string', default: join(homedir(), '.devicebench') },
      },
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port must be a whole number from 0 to 65535, not "${values.port}"`);

  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  const credentials = await openKeychain();
  if (credentials.status.kind === 'memory') process.stderr.write(`${credentials.status.reason}\n`);
  const server = await startBenchServer({
    dataDir: values['data-dir'],
    port,
    credentials,
    version,
  }).catch((err: NodeJS.ErrnoException) =>
    fail(err.code === 'EADDRINUSE' ? `port ${port} is in use; pass --port <another>` : err.message),
  );
  process.stdout.write(`DeviceBench is running at ${server.url} (data in ${values['data-dir']})\n`);

  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
