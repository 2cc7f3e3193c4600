// One HTTP/1.1 exchange over a raw socket, for what fetch cannot send or see: a POST with no
// body and no Content-Length, and whether the server closes the connection after answering.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** The answer's body as text (after the blank line; chunk framing left in). */
  body: string;
  /** Whether the server closed the connection within the wait. */
  closed: boolean;
}

/**
 * Writes `head` (request line and headers, no trailing blank line) and waits up to `waitMs`
 * for the server to close; with `Connection: close` in `head` that is as soon as it answers.
 * The Host header is `url`'s, unless `host` says otherwise (`null`: none at all).
 */
export function rawRequest(
  url: URL,
  head: string[],
  waitMs = 5_000,
  host: string | null = url.host,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [top = '', ...rest] = answer.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(top)?.[1] ?? 0),
        body: rest.join('\r\n\r\n'),
        closed,
      });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
    socket.write([...head, ...(host === null ? [] : [`Host: ${host}`]), '', ''].join('\r\n'));
  });
}
