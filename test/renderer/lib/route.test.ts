import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash } from '../../../src/renderer/lib/route';

describe('the route in the URL hash', () => {
  it('reads the page and the product', () => {
    expect(parseRoute('#/scenarios?product=3000000001', 'start')).toEqual({
      page: 'scenarios',
      productId: '3000000001',
    });
    expect(parseRoute('#/audit-log', 'start')).toEqual({ page: 'audit-log' });
  });

  it('opens the fallback page for an empty hash, and ignores an empty product', () => {
    expect(parseRoute('', 'start')).toEqual({ page: 'start' });
    expect(parseRoute('#/', 'start')).toEqual({ page: 'start' });
    expect(parseRoute('#/line?product=', 'start')).toEqual({ page: 'line' });
  });

  it('writes what it reads, with an id that needs escaping kept whole', () => {
    for (const route of [
      { page: 'provisioning', productId: '3000000002' },
      { page: 'device-service', productId: 'a b&c' },
      { page: 'settings' },
    ])
      expect(parseRoute(routeHash(route), 'start')).toEqual(route);
    expect(routeHash({ page: 'scenarios', productId: '3000000001' })).toBe(
      '#/scenarios?product=3000000001',
    );
  });
});
