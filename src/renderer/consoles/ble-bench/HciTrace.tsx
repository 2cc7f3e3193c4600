// The BLE bench's HCI trace: the last minutes of traffic between noble and the adapter (or
// the simulated bench's controller), or everything since the page opened, as a btsnoop file.
import { useId, useState } from 'react';
import { Panel } from '../../components/Panel';
import { TraceButton } from '../../components/TraceButton';

const SPANS = [
  { value: '1', label: 'Last minute', ms: 60_000 },
  { value: '5', label: 'Last 5 minutes', ms: 5 * 60_000 },
  { value: '15', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '60', label: 'Last hour', ms: 60 * 60_000 },
  { value: 'page', label: 'Since this page opened', ms: undefined },
] as const;

export function HciTrace() {
  const id = useId();
  const [openedAt] = useState(() => Date.now());
  const [choice, setChoice] = useState<(typeof SPANS)[number]['value']>('5');
  const span = () => {
    const to = Date.now();
    const ms = SPANS.find((s) => s.value === choice)?.ms;
    return { from: ms === undefined ? openedAt : to - ms, to };
  };
  return (
    <Panel title="HCI trace" testId="ble-trace">
      <p className="muted">
        Every HCI packet of the BLE process is kept in the data folder&apos;s <code>traces/</code>,
        the oldest files deleted first. Save a stretch of it as a btsnoop file; Wireshark opens it
        as it is.
      </p>
      <div className="inline-form">
        <div className="field">
          <label htmlFor={`${id}-span`}>Time</label>
          <select
            id={`${id}-span`}
            value={choice}
            onChange={(event) => setChoice(event.target.value as typeof choice)}
          >
            {SPANS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <TraceButton span={span} label="ble-bench" />
      </div>
    </Panel>
  );
}
