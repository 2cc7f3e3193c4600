// One rule for an RSSI the controller did not measure (127, HCI's "not available"): shown as
// "n/a", null in JSON, never meeting a minimum, sorted after every measured signal.
import { describe, expect, it } from 'vitest';
import { measuredRssi, meetsMinRssi, rssiText, strongerFirst } from '../../../src/core/ble/rssi';

describe('RSSI', () => {
  it('shows a measured one in dBm and 127 as n/a', () => {
    expect(rssiText(-70)).toBe('-70 dBm');
    expect(rssiText(127)).toBe('n/a');
    expect(measuredRssi(-127)).toBe(-127);
    expect(measuredRssi(127)).toBeNull();
  });

  it('lets an unmeasured one meet no minimum, and sorts it after every measured one', () => {
    expect(meetsMinRssi(127, -120)).toBe(false);
    expect(meetsMinRssi(127, undefined)).toBe(true);
    expect(meetsMinRssi(-80, -80)).toBe(true);
    expect(meetsMinRssi(-81, -80)).toBe(false);
    expect([127, -90, -40, 127].sort(strongerFirst)).toEqual([-40, -90, 127, 127]);
  });
});
