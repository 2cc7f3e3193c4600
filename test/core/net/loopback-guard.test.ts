// The one guard every listener shares (docs/decisions.md, "Hardening"): which Host and Origin
// headers pass, decided the same way for the bench server, the receiver and the emulator.
import { describe, expect, it } from 'vitest';
import { hostnameOf, refusalReason } from '../../../src/core/net/loopback-guard';

describe('loopback guard', () => {
  it('admits the loopback names on any port, and no other name', () => {
    for (const host of ['localhost', 'LOCALHOST:80', '127.0.0.1:4780', '[::1]', '[::1]:1'])
      expect(refusalReason({ host }), host).toBeUndefined();
    for (const host of [
      '',
      'evil.example',
      'evil.example:4780',
      '127.0.0.1.evil.example',
      'localhost.evil.example:80',
      '127.0.0.2:80',
      'localhost:80:80',
      '[::2]:80',
      'localhost:port',
    ])
      expect(refusalReason({ host }), host).toMatch(/^Host/);
  });

  it('admits the extra names it is given', () => {
    expect(refusalReason({ host: 'emulator:4000' }, { extraHostnames: ['emulator'] })).toBe(
      undefined,
    );
    expect(refusalReason({ host: 'other:4000' }, { extraHostnames: ['emulator'] })).toMatch(/Host/);
  });

  it("admits no Origin or the Host's own page, and refuses every other page", () => {
    const host = '127.0.0.1:4780';
    expect(refusalReason({ host })).toBeUndefined();
    expect(refusalReason({ host, origin: 'http://127.0.0.1:4780' })).toBeUndefined();
    for (const origin of [
      'http://evil.example',
      'http://localhost:4780',
      'http://127.0.0.1:4781',
      'https://127.0.0.1:4780',
      'null',
      'file://',
    ])
      expect(refusalReason({ host, origin }), origin).toMatch(/^Origin/);
    expect(refusalReason({ host, origin: ['http://127.0.0.1:4780', 'x'] })).toMatch(/^Origin/);
  });

  it('reads the host name out of a Host header', () => {
    expect(hostnameOf('Example.COM:8080')).toBe('example.com');
    expect(hostnameOf('[::1]:80')).toBe('[::1]');
    expect(hostnameOf('a b')).toBeUndefined();
  });
});
