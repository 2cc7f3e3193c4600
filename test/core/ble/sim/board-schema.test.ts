// A simulated board's RSSI within what a bench can receive (docs/decisions.md, "Validation
// that reads like a person").
import { describe, expect, it } from 'vitest';
import { boardSpecSchema } from '../../../../src/core/ble/sim/board-schema';
import { fieldErrors } from '../../../../src/core/platform/field-errors';

function refusal(mean: number) {
  const parsed = boardSpecSchema.safeParse({ name: 'Sensor', advertising: { rssi: { mean } } });
  return parsed.success ? [] : fieldErrors(parsed.error);
}

describe('board rssi', () => {
  it.each([5, 20, -128])('refuses a mean of %d dBm with the range', (mean) => {
    expect(refusal(mean)).toEqual([
      { field: 'advertising.rssi.mean', message: 'must be between −127 and 0 dBm' },
    ]);
  });

  it.each([-127, -60, 0])('takes a mean of %d dBm', (mean) => {
    expect(refusal(mean)).toEqual([]);
  });
});
