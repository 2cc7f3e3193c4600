// The adapter as the user needs to know it: which bench (simulated or hardware), whether the
// radio is usable and what to do if not, and the BLE process with its crashes and a restart.
import { useState } from 'react';
import type { BleStatus } from '../../../core/app/contracts/ble';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { formatTime } from '../../lib/format';

const STATE_LABELS: Record<BleStatus['adapterState'], string> = {
  unknown: 'Starting…',
  resetting: 'Resetting',
  unsupported: 'Bluetooth LE not supported',
  unauthorized: 'Bluetooth permission denied',
  poweredOff: 'Bluetooth is off',
  poweredOn: 'Ready',
  noAdapter: 'No adapter found',
};

const MODES = [
  { mode: 'simulated', label: 'Simulated bench' },
  { mode: 'hardware', label: 'Hardware adapter' },
] as const;

export function AdapterStatus({
  status,
  onStatus,
}: {
  status: BleStatus;
  onStatus: (status: BleStatus) => void;
}) {
  const api = useApi();
  const action = useAction<BleStatus>();
  // The chosen mode shows at once; the status catches up when the switch has happened.
  const [pendingMode, setPendingMode] = useState<BleStatus['mode']>();
  const ready = status.adapterState === 'poweredOn';
  const { host } = status;

  return (
    <Panel title="Adapter" testId="ble-adapter">
      <div className="ble-adapter">
        <fieldset className="ble-mode" disabled={action.busy}>
          <legend>Bench</legend>
          {MODES.map(({ mode, label }) => (
            <label key={mode}>
              <input
                type="radio"
                name="ble-mode"
                value={mode}
                checked={(pendingMode ?? status.mode) === mode}
                onChange={() => {
                  setPendingMode(mode);
                  void action
                    .run(async () => {
                      const next = await api.ble.setMode({ mode });
                      onStatus(next);
                      return next;
                    })
                    .finally(() => setPendingMode(undefined));
                }}
              />
              {label}
            </label>
          ))}
        </fieldset>
        <div className="ble-state" data-testid="adapter-state" role="status">
          <span className={`badge ${ready ? 'good' : 'warn'}`}>
            {STATE_LABELS[status.adapterState]}
          </span>
          {!ready && status.guidance && <p className="ble-guidance">{status.guidance}</p>}
        </div>
        <div className="ble-host" data-testid="ble-host">
          <span className={host.running ? 'good' : 'bad'}>
            BLE process {host.running ? 'running' : 'stopped'}
            {host.pid !== undefined && <span className="muted"> (pid {host.pid})</span>}
          </span>
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                const next = await api.ble.restartHost({});
                onStatus(next);
                return next;
              })
            }
          >
            {action.busy ? 'Working…' : 'Restart BLE process'}
          </button>
        </div>
      </div>
      {host.crashes > 0 && (
        <div className="warning-box" role="alert" data-testid="ble-crash">
          The BLE process ended unexpectedly {host.crashes === 1 ? 'once' : `${host.crashes} times`}
          {host.lastCrash && (
            <>
              , last at {formatTime(host.lastCrash.at)}: <code>{host.lastCrash.reason}</code>
            </>
          )}
          . The window kept running; {host.running ? 'it was restarted.' : 'restart it to scan.'}
        </div>
      )}
      {/* Under the switch and the restart button it came from. */}
      <ErrorNotice error={action.error} testId="ble-mode-error" />
    </Panel>
  );
}
