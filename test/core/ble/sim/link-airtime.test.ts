// The link model's air time (src/core/ble/sim/link-airtime.ts): a PDU's time from its octets and
// PHY, and how many exchanges a connection event holds — the controller's count, or the air
// time of the interval, whichever ends it first.
import { describe, expect, it } from 'vitest';
import { EventBudget, eventsFor, pduAirUs } from '../../../../src/core/ble/sim/link-airtime';

const fill = (budget: EventBudget, octets: number) => {
  let n = 0;
  while (n < 100 && budget.take(octets, undefined)) n++;
  return n;
};

describe('link air time', () => {
  it('times a PDU as the Core Specification counts its octets: 2M halves the bits, MIC only when encrypted', () => {
    // Preamble 1, access address 4, header 2, payload, CRC 3 at 8 µs an octet.
    expect(pduAirUs(27, '1M')).toBe(296);
    expect(pduAirUs(251, '1M')).toBe(2088);
    // Preamble 2 at 2M, 4 µs an octet.
    expect(pduAirUs(251, '2M')).toBe(1048);
    expect(pduAirUs(251, '2M', true)).toBe(1064);
    expect(pduAirUs(0, '1M', true)).toBe(80);
    expect(pduAirUs(27, 'coded')).toBeGreaterThan(8 * pduAirUs(27, '1M'));
  });

  it('fills an event up to the controller’s count with short PDUs, and up to the interval’s air time with long ones', () => {
    const timing = { intervalMs: 7.5, pdusPerEvent: 8, txPhy: '1M', rxPhy: '1M' } as const;
    expect(fill(new EventBudget({ ...timing, intervalMs: 15, pdusPerEvent: 4 }), 27)).toBe(4);
    // 2088 + 150 + 80 + 150 µs an exchange: three in 7.5 ms on LE 1M, five on LE 2M.
    expect(fill(new EventBudget(timing), 251)).toBe(3);
    expect(fill(new EventBudget({ ...timing, txPhy: '2M', rxPhy: '2M' }), 251)).toBe(5);
    // An event always carries one exchange, however long the interval is short.
    expect(fill(new EventBudget({ ...timing, txPhy: 'coded', rxPhy: 'coded' }), 251)).toBe(1);
    expect(eventsFor(Array(10).fill(251), { ...timing, txPhy: '2M', rxPhy: '2M' })).toBe(2);
  });
});
