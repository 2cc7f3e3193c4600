// postSigned against a real local server: the signature verifies with the channel secret, a
// non-2xx answer and an unreachable URL are FAILED outcomes, never throws.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postSigned } from '../../../src/core/webhooks/send';
import { SIGNATURE_HEADER, verifySignature } from '../../../src/core/webhooks/signature';

interface Hit {
  body: string;
  signature: string | undefined;
  contentType: string | undefined;
}
const hits: Hit[] = [];
let answer = 200;
let server: Server;
let url: string;

function listen(s: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      if (!address || typeof address === 'string') reject(new Error('no address'));
      else resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hits.push({
        body,
        signature: req.headers[SIGNATURE_HEADER] as string | undefined,
        contentType: req.headers['content-type'],
      });
      res.statusCode = answer;
      res.end('{}');
    });
  });
  url = `${await listen(server)}/hook`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('postSigned', () => {
  it('sends the exact body, signed with the channel secret', async () => {
    answer = 200;
    // Odd spacing: the signature must be over these bytes, not a re-serialisation.
    const body = '{"destination":"2000000001",  "events":[{"type":"things"}]}';
    const outcome = await postSigned(url, body, 'secret-a');
    expect(outcome).toMatchObject({ status: 'SUCCESS', responseStatus: 200 });
    const hit = hits.at(-1)!;
    expect(hit.body).toBe(body);
    expect(hit.contentType).toMatch(/^application\/json/);
    expect(hit.signature).toBe(outcome.signature);
    expect(verifySignature(hit.body, 'secret-a', hit.signature)).toBe(true);
    expect(verifySignature(hit.body, 'secret-b', hit.signature)).toBe(false);
  });

  it('is FAILED with the status when the receiver answers 500', async () => {
    answer = 500;
    const outcome = await postSigned(url, '{}', 'secret-a');
    expect(outcome.status).toBe('FAILED');
    expect(outcome.responseStatus).toBe(500);
    expect(outcome.error).toContain('500');
    expect(verifySignature('{}', 'secret-a', outcome.signature)).toBe(true);
  });

  it('is FAILED with an error when nothing listens at the URL', async () => {
    // A port that was just free: take one, then give it back.
    const closed = createServer();
    const closedUrl = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await postSigned(`${closedUrl}/hook`, '{}', 'secret-a');
    expect(outcome.status).toBe('FAILED');
    expect(outcome.responseStatus).toBeUndefined();
    expect(outcome.error).toMatch(/ECONNREFUSED|connect/i);
  });
});
