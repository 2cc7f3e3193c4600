// A board's recent RSSI as a tiny line: -100 dBm at the bottom, -30 dBm at the top. The number
// beside it is what screen readers get; the line is decoration.
import { memo } from 'react';
import { HISTORY } from '../lib/scan-model';

const WIDTH = 90;
const HEIGHT = 20;
const FLOOR = -100;
const CEILING = -30;

export const RssiSparkline = memo(function RssiSparkline({
  samples,
}: {
  samples: readonly number[];
}) {
  const step = WIDTH / (HISTORY - 1);
  const offset = HISTORY - samples.length;
  const points = samples
    .map((rssi, i) => {
      const clamped = Math.min(CEILING, Math.max(FLOOR, rssi));
      const y = HEIGHT - ((clamped - FLOOR) / (CEILING - FLOOR)) * HEIGHT;
      return `${((offset + i) * step).toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
  return (
    <svg
      className="ble-sparkline"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
      aria-hidden="true"
      focusable="false"
    >
      {samples.length > 1 && <polyline points={points} fill="none" stroke="currentColor" />}
    </svg>
  );
});
