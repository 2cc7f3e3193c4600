// The embedded platform emulator: its URL and clock, channels, users, devices, injected
// faults, and a live log of every request it answers.
import { useCallback, useId, useMemo, useState, type FormEvent } from 'react';
import type { EmulatorState } from '../../core/app/contract';
import type { Activity } from '../../core/emulator/schema';
import { CopyableId, IdFact } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { LoadFailure } from '../components/LoadFailure';
import { Panel } from '../components/Panel';
import { TableHead } from '../components/TableHead';
import { TextField, type Suggestion } from '../components/TextField';
import { useApi } from '../lib/api-context';
import { formatClockTime, formatDuration, formatTime } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useActivityFeed } from '../lib/use-activity';
import { useFields } from '../lib/use-fields';
import { useLoad } from '../lib/use-load';

const CLOCK_STEPS: { label: string; ms: number }[] = [
  { label: '+1 min', ms: 60_000 },
  { label: '+1 h', ms: 3_600_000 },
  { label: '+1 day', ms: 86_400_000 },
  { label: '+7 days', ms: 7 * 86_400_000 },
  { label: '+30 days', ms: 30 * 86_400_000 },
];
const LOG_LIMIT = 300;

export function Emulator() {
  const state = useLoad((api) => api.emulator.getState({}), []);
  const products = useLoad((api) => api.things.listTrialProducts({}).catch(() => []), []);
  const [live, setLive] = useState<Activity[]>([]);
  useActivityFeed(
    useCallback(
      (activity: Activity) => setLive((prev) => [activity, ...prev].slice(0, LOG_LIMIT)),
      [],
    ),
  );

  const s = state.value;
  if (!s) {
    return (
      <div className="page">
        <header className="page-header">
          <h1>Emulator</h1>
        </header>
        {state.error !== undefined ? (
          <LoadFailure error={state.error} onRetry={state.reload} />
        ) : (
          <p className="note" role="status">
            Loading emulator state…
          </p>
        )}
      </div>
    );
  }

  return (
    <div className="page">
      <header className="page-header">
        <h1>Emulator</h1>
        <p className="muted">The local platform every “Local emulator” environment talks to.</p>
        <button type="button" className="link" onClick={state.reload} disabled={state.loading}>
          {state.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </header>
      {state.error !== undefined && <LoadFailure error={state.error} onRetry={state.reload} />}
      <div className="columns">
        <Overview state={s} onChanged={state.reload} />
        <Channels channels={s.channels} />
      </div>
      <div className="columns">
        <Users users={s.users} onChanged={state.reload} />
        <Faults faults={s.faults} onChanged={state.reload} />
      </div>
      <Devices
        state={s}
        products={(products.value ?? []).map((p) => ({ value: p.id, label: p.name }))}
        onChanged={state.reload}
      />
      <ActivityLog initial={s.activity} live={live} />
    </div>
  );
}

function Overview({ state, onChanged }: { state: EmulatorState; onChanged: () => void }) {
  const api = useApi();
  const action = useAction();
  const move = (call: () => Promise<unknown>) =>
    void action.run(async () => {
      await call();
      onChanged();
    });
  return (
    <Panel title="Server and clock">
      <dl className="facts">
        <IdFact term="Platform URL" value={state.url} label="emulator URL" />
        <IdFact term="Admin URL" value={state.adminUrl} label="admin URL" />
        <dt>Clock</dt>
        <dd data-testid="emulator-clock">
          <span className="mono">{formatTime(state.clock.now)}</span>{' '}
          <span className="muted">({formatDuration(state.clock.offsetMs)} from real time)</span>
        </dd>
      </dl>
      <div className="button-row" role="group" aria-label="Move the clock">
        {CLOCK_STEPS.map((step) => (
          <button
            key={step.label}
            type="button"
            disabled={action.busy}
            onClick={() => move(() => api.emulator.advanceClock({ ms: step.ms }))}
          >
            {step.label}
          </button>
        ))}
        <button
          type="button"
          disabled={action.busy || state.clock.offsetMs === 0}
          onClick={() => move(() => api.emulator.resetClock({}))}
        >
          Reset clock
        </button>
      </div>
      <ErrorNotice error={action.error} />
    </Panel>
  );
}

function Channels({ channels }: { channels: EmulatorState['channels'] }) {
  return (
    <Panel title="Channels">
      {channels.length === 0 ? (
        <p className="note empty">No channels.</p>
      ) : (
        <table className="grid">
          <TableHead columns={['Channel ID', 'Name']} />
          <tbody>
            {channels.map((c) => (
              <tr key={c.channelId}>
                <td>
                  <CopyableId value={c.channelId} label={`channel ID of ${c.name}`} />
                </td>
                <td>{c.name}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function Users({ users, onChanged }: { users: EmulatorState['users']; onChanged: () => void }) {
  const api = useApi();
  const add = useAction();
  const fields = useFields({ displayName: '' }, add.error);

  async function submit(event: FormEvent) {
    event.preventDefault();
    await add.run(async () => {
      await api.emulator.addUser({ displayName: fields.values.displayName });
      fields.set('displayName', '');
      onChanged();
    });
  }

  return (
    <Panel title="Users">
      <form className="inline-form" onSubmit={submit} aria-label="Add user">
        <TextField label="Display name" {...fields.bind('displayName')} />
        <button type="submit" disabled={add.busy}>
          Add user
        </button>
      </form>
      <ErrorNotice error={add.error} shownFields={fields.names} />
      {users.length === 0 ? (
        <p className="note empty">No users yet.</p>
      ) : (
        <table className="grid" data-testid="users-table">
          <TableHead columns={['User ID', 'Display name']} />
          <tbody>
            {users.map((u) => (
              <tr key={u.userId} data-testid="user-row">
                <td>
                  <CopyableId value={u.userId} label={`user ID of ${u.displayName}`} />
                </td>
                <td>{u.displayName}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function Devices({
  state,
  products,
  onChanged,
}: {
  state: EmulatorState;
  /** Trial products of the active channel, suggested for the product ID. */
  products: readonly Suggestion[];
  onChanged: () => void;
}) {
  const api = useApi();
  const register = useAction();
  const fields = useFields(
    { productId: '', productSpecificDeviceId: '', userId: '' },
    register.error,
  );
  const [registered, setRegistered] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setRegistered(undefined);
    const { productId, productSpecificDeviceId, userId } = fields.values;
    await register.run(async () => {
      const result = await api.emulator.registerDevice({
        productId,
        productSpecificDeviceId,
        userId: userId.trim() === '' ? undefined : userId,
      });
      setRegistered(result.device.id);
      fields.set('productSpecificDeviceId', '');
      onChanged();
    });
  }

  return (
    <Panel title="Devices">
      <form className="inline-form" onSubmit={submit} aria-label="Register device">
        <TextField label="Product ID" {...fields.bind('productId')} suggestions={products} mono />
        <TextField
          label="Product-specific device ID (PSDI)"
          {...fields.bind('productSpecificDeviceId')}
          mono
        />
        <TextField
          label="Link to user (optional)"
          {...fields.bind('userId')}
          suggestions={state.users.map((u) => ({ value: u.userId, label: u.displayName }))}
          mono
          placeholder="U + 32 hex digits"
          className="grow"
        />
        <button type="submit" className="primary" disabled={register.busy}>
          Register device
        </button>
      </form>
      <ErrorNotice error={register.error} shownFields={fields.names} />
      {registered && (
        <p className="notice" role="status" data-testid="registered-device">
          Registered device <code className="mono">{registered}</code>
        </p>
      )}
      {state.devices.length === 0 ? (
        <p className="note empty">No devices registered.</p>
      ) : (
        <table className="grid" data-testid="devices-table">
          <TableHead columns={['Device ID', 'Product ID', 'PSDI', 'Linked user']} />
          <tbody>
            {state.devices.map((d) => (
              <tr key={d.id} data-testid="device-row" data-device-id={d.id}>
                <td>
                  <CopyableId value={d.id} label="device ID" />
                </td>
                <td className="mono">{d.productId}</td>
                <td className="mono">{d.productSpecificDeviceId}</td>
                <td>
                  {d.userId ? (
                    <CopyableId value={d.userId} label="linked user ID" />
                  ) : (
                    <span className="muted">not linked</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

type FaultChoice = '429' | '500' | '503' | 'latency';

function Faults({ faults, onChanged }: { faults: EmulatorState['faults']; onChanged: () => void }) {
  const api = useApi();
  const kindId = useId();
  const inject = useAction();
  const clear = useAction();
  const [choice, setChoice] = useState<FaultChoice>('429');
  const fields = useFields({ latencyMs: '2000', count: '1', pathPrefix: '' }, inject.error);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { latencyMs, count, pathPrefix } = fields.values;
    const common = { count: Number(count), pathPrefix: pathPrefix.trim() || undefined };
    await inject.run(async () => {
      await api.emulator.injectFault(
        choice === 'latency'
          ? { kind: 'latency', latencyMs: Number(latencyMs), ...common }
          : { kind: 'status', status: Number(choice) as 429 | 500 | 503, ...common },
      );
      onChanged();
    });
  }

  async function clearAll() {
    await clear.run(async () => {
      await api.emulator.clearFaults({});
      onChanged();
    });
  }

  return (
    <Panel
      title="Faults"
      actions={
        <button
          type="button"
          className="link"
          disabled={clear.busy || faults.length === 0}
          onClick={() => void clearAll()}
        >
          Clear all
        </button>
      }
    >
      <form className="inline-form" onSubmit={submit} aria-label="Inject fault">
        <div className="field">
          <label htmlFor={kindId}>Fault</label>
          <select
            id={kindId}
            value={choice}
            onChange={(e) => setChoice(e.target.value as FaultChoice)}
          >
            <option value="429">429 Too Many Requests</option>
            <option value="500">500 Internal Server Error</option>
            <option value="503">503 Service Unavailable</option>
            <option value="latency">Latency</option>
          </select>
        </div>
        {choice === 'latency' && (
          <TextField
            label="Latency (ms)"
            {...fields.bind('latencyMs')}
            inputMode="numeric"
            className="number"
          />
        )}
        <TextField
          label="Next N requests"
          {...fields.bind('count')}
          inputMode="numeric"
          className="number"
        />
        <TextField
          label="Path prefix (optional)"
          {...fields.bind('pathPrefix')}
          mono
          placeholder="/things/v1"
        />
        <button type="submit" disabled={inject.busy}>
          Inject
        </button>
      </form>
      <ErrorNotice error={inject.error ?? clear.error} shownFields={fields.names} />
      {faults.length === 0 ? (
        <p className="note empty">No faults: requests are answered normally.</p>
      ) : (
        <table className="grid" data-testid="faults-table">
          <TableHead columns={['Fault', 'Remaining', 'Paths']} />
          <tbody>
            {faults.map((f) => (
              <tr key={f.id}>
                <td>{f.kind === 'status' ? `HTTP ${f.status}` : `${f.latencyMs} ms latency`}</td>
                <td>
                  {f.remaining} of {f.count}
                </td>
                <td className="mono">{f.pathPrefix ?? 'all'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function ActivityLog({ initial, live }: { initial: Activity[]; live: Activity[] }) {
  const entries = useMemo(() => {
    const bySeq = new Map<number, Activity>();
    for (const a of [...initial, ...live]) bySeq.set(a.seq, a);
    return [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, LOG_LIMIT);
  }, [initial, live]);

  return (
    <Panel title="Activity" actions={<span className="muted">newest first, live</span>}>
      {entries.length === 0 ? (
        <p className="note empty">No requests yet.</p>
      ) : (
        <div className="scroll">
          <table className="grid log" data-testid="activity-log">
            <TableHead
              columns={['Time', 'Method', 'Path', 'Status', 'Request ID', 'Duration', 'Note']}
            />
            <tbody>
              {entries.map((a) => (
                <tr key={a.seq} data-testid="activity-row">
                  <td className="mono">{formatClockTime(a.at)}</td>
                  <td className="mono">{a.method}</td>
                  <td className="mono wrap">{a.path}</td>
                  <td className={`mono ${a.status >= 400 ? 'bad' : 'good'}`}>{a.status}</td>
                  <td className="mono wrap">{a.requestId}</td>
                  <td className="mono">{a.durationMs} ms</td>
                  <td>
                    {[a.admin && 'admin', a.fault && `fault: ${a.fault}`]
                      .filter(Boolean)
                      .join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
