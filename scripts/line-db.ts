// `npm run line-db -- <folder> [--port <n>]`: a local PostgreSQL for trying the line mode, from
// Debian's postgresql package, its data in <folder> (kept between runs). Prints the URL to give
// each station (Settings → Audit and PSDI pool, or DEVICEBENCH_AUDIT_URL) and stops on Ctrl-C.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalPostgres } from './local-postgres';

const usage = 'usage: npm run line-db -- <folder> [--port <n>]';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help || positionals.length !== 1) {
  process.stderr.write(`${usage}\n`);
  process.exit(values.help ? 0 : 2);
}
const port = values.port === undefined ? 5432 : Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write(`line-db: --port must be a port number from 1 to 65535\n${usage}\n`);
  process.exit(2);
}
const dir = resolve(positionals[0] as string);
try {
  const server = await startLocalPostgres({ dir, port });
  process.stdout.write(
    [
      `PostgreSQL for the line is running, data in ${dir}`,
      `  URL: ${server.url}`,
      `  Stations on this machine: DEVICEBENCH_AUDIT_URL=${server.url} DEVICEBENCH_STATION=<name> npm run web`,
      '  or Settings → Audit and PSDI pool → Shared PostgreSQL with that URL.',
      'It listens on 127.0.0.1 only and trusts local connections: for other machines use a team database (README, "A production line").',
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  const stop = () => {
    server.stop('fast').then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`line-db: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  process.stderr.write(`line-db: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
