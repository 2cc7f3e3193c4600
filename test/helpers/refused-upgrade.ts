// A WebSocket upgrade from another web page over a raw socket the client never closes itself,
// for checking that a listener closes what it refuses (docs/decisions.md, "Hardening").
import { connect } from 'node:net';

/** True when the server answered 403 and then closed the connection within `waitMs`. */
function refusedUpgrade(url: URL, path: string, waitMs = 5_000): Promise<boolean> {
  return new Promise((resolveAttempt) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolveAttempt(false);
    }, waitMs);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolveAttempt(answer.startsWith('HTTP/1.1 403'));
    });
    socket.write(
      [
        `GET ${path} HTTP/1.1`,
        `Host: ${url.host}`,
        'Origin: http://evil.example',
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        '',
        '',
      ].join('\r\n'),
    );
  });
}

/** Runs `total` refused upgrades, `atOnce` at a time; resolves with how many the server closed. */
export async function refusedUpgrades(
  url: URL,
  path: string,
  total: number,
  atOnce = 50,
): Promise<number> {
  let closed = 0;
  for (let done = 0; done < total; done += atOnce) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(atOnce, total - done) }, () => refusedUpgrade(url, path)),
    );
    closed += batch.filter(Boolean).length;
  }
  return closed;
}
