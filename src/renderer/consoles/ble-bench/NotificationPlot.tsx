// A subscribed characteristic's values over time, when its format reads as a number: uPlot
// (installed for this; it draws on a canvas, so the CSP's style and script rules are untouched)
// with time along the bottom and the value, in the format's unit, up the side.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface PlotPoint {
  /** ms since the epoch. */
  at: number;
  value: number;
}

const HEIGHT = 140;

export function NotificationPlot({
  points,
  label,
  unit,
}: {
  points: readonly PlotPoint[];
  /** What is plotted, for screen readers. */
  label: string;
  /** The value axis' label. */
  unit: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const chart = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height: HEIGHT,
        legend: { show: false },
        scales: { x: { time: true } },
        series: [{}, { label, stroke: '#2563eb', width: 2, points: { show: true, size: 4 } }],
        axes: [{}, { label: unit || undefined, size: 60 }],
      },
      [[], []],
      el,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(el.clientWidth, 200), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [label, unit]);

  useEffect(() => {
    plot.current?.setData([points.map((p) => p.at / 1000), points.map((p) => p.value)]);
  }, [points, label]);

  return (
    <div
      className="ble-plot"
      ref={box}
      data-testid="notification-plot"
      data-points={points.length}
      role="img"
      aria-label={`${label} over time, ${points.length} values`}
    />
  );
}
