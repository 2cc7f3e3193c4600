// The BLE bench's HCI trace: the last minutes of traffic between noble and the adapter (or
// the simulated bench's controller), or everything since the page opened, as a btsnoop file;
// and whether the traces keep the link keys (docs/decisions/ble-and-hci.md, "Keys in traces").
import { useId, useState } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TraceButton } from '../../components/TraceButton';
import type { TraceSettings } from '../../../core/ble/hci/trace-settings';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useLoad } from '../../lib/use-load';

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
      <KeepKeys />
    </Panel>
  );
}

/**
 * "Keep link keys": off, every trace has its keys redacted; on, the BLE process writes them as
 * they cross the HCI from now on and every "HCI trace" file keeps them, for Wireshark.
 */
function KeepKeys() {
  const id = useId();
  const api = useApi();
  const loaded = useLoad((api) => api.ble.traceSettings({}), []);
  const save = useAction<TraceSettings>();
  // The box follows the click at once; a save that fails puts it back to what is saved.
  const [choice, setChoice] = useState<boolean>();
  const keepKeys = choice ?? save.value?.keepKeys ?? loaded.value?.keepKeys;
  return (
    <>
      <div className="field checkbox">
        <input
          id={`${id}-keep-keys`}
          type="checkbox"
          checked={keepKeys ?? false}
          disabled={keepKeys === undefined}
          onChange={(event) => {
            const next = event.target.checked;
            setChoice(next);
            void save
              .run(() => api.ble.saveTraceSettings({ keepKeys: next }))
              .then((saved) => {
                if (!saved) setChoice(undefined);
              });
          }}
        />
        <label htmlFor={`${id}-keep-keys`}>
          Keep link keys in traces (for Wireshark to decrypt an air capture)
        </label>
      </div>
      {keepKeys ? (
        <p className="warning-box" role="alert">
          Traces hold the link keys in clear from now on: anyone with one can decrypt the link.
          Traces recorded while it was off have theirs redacted already.
        </p>
      ) : (
        <p className="muted">
          Link keys (LTK, IRK, CSRK) are redacted in every trace and file saved from it.
        </p>
      )}
      <ErrorNotice error={loaded.error ?? save.error} />
    </>
  );
}
