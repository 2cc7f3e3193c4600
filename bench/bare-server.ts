// The ceiling for the emulator-throughput benchmark: plain node:http answering fixed bytes with
// the headers the emulator sends, so the only difference left is the emulator's own work.
// Prints `{"url": ...}` once listening; stopped by SIGTERM like the emulator CLI.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { REQUEST_ID_HEADER } from '../src/core/platform/http';

const { values } = parseArgs({
  options: { body: { type: 'string' }, 'content-type': { type: 'string' } },
});
if (!values.body || !values['content-type'])
  throw new Error('usage: bare-server.ts --body <base64> --content-type <type>');
const body = Buffer.from(values.body, 'base64');
const contentType = values['content-type'];

const server = createServer((_request, response) => {
  response.writeHead(200, {
    [REQUEST_ID_HEADER]: randomUUID(),
    'content-type': contentType,
    'content-length': body.length,
  });
  response.end(body);
});
// Fastify's default, so both servers send the same `Keep-Alive: timeout=72` header.
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('bare server has no TCP address');
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${address.port}` }) + '\n');
});
