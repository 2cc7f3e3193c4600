// The embedded platform emulator: its URL and clock, channels, users, devices, injected
// faults, and a live log of every request it answers.
import { useCallback, useId, useMemo, useState, type FormEvent } from 'react';
import type { EmulatorState } from '../../core/app/contract';
import type { Activity } from '../../core/emulator/schema';
import { CopyableId } from '../components/CopyButton';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../components/TextField';
import { useApi } from '../lib/api-context';
import { messagesFor } from '../lib/errors';
import { formatClockTime, formatDuration, formatTime } from '../lib/format';
import { useActivityFeed } from '../lib/use-activity';
import { useResource } from '../lib/use-resource';

const CLOCK_STEPS: { label: string; ms: number }[] = [
  { label: '+1 min', ms: 60_000 },
  { label: '+1 h', ms: 3_600_000 },
  { label: '+1 day', ms: 86_400_000 },
  { label: '+7 days', ms: 7 * 86_400_000 },
  { label: '+30 days', ms: 30 * 86_400_000 },
];
const LOG_LIMIT = 300;

/** Runs an API call for a form, keeping its busy flag and error. */
function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

export function Emulator() {
  const api = useApi();
  const state = useResource(useCallback(() => api.emulator.getState({}), [api]));
  const products = useResource(
    useCallback(() => api.things.listTrialProducts({}).catch(() => []), [api]),
  );
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
          <>
            <ErrorNotice error={state.error} />
            <button type="button" onClick={state.reload}>
              Try again
            </button>
          </>
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
      {state.error !== undefined && <ErrorNotice error={state.error} />}
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
        productIds={(products.value ?? []).map((p) => ({ id: p.id, name: p.name }))}
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
    void action.run(call).then((ok) => ok && onChanged());
  return (
    <section className="panel" aria-labelledby="emu-overview">
      <header className="panel-header">
        <h2 id="emu-overview">Server and clock</h2>
      </header>
      <dl className="facts">
        <dt>Platform URL</dt>
        <dd>
          <CopyableId value={state.url} label="emulator URL" />
        </dd>
        <dt>Admin URL</dt>
        <dd>
          <CopyableId value={state.adminUrl} label="admin URL" />
        </dd>
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
    </section>
  );
}

function Channels({ channels }: { channels: EmulatorState['channels'] }) {
  return (
    <section className="panel" aria-labelledby="emu-channels">
      <header className="panel-header">
        <h2 id="emu-channels">Channels</h2>
      </header>
      {channels.length === 0 ? (
        <p className="note empty">No channels.</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">Channel ID</th>
              <th scope="col">Name</th>
            </tr>
          </thead>
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
    </section>
  );
}

function Users({ users, onChanged }: { users: EmulatorState['users']; onChanged: () => void }) {
  const api = useApi();
  const action = useAction();
  const [displayName, setDisplayName] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await action.run(() => api.emulator.addUser({ displayName }))) {
      setDisplayName('');
      onChanged();
    }
  }

  return (
    <section className="panel" aria-labelledby="emu-users">
      <header className="panel-header">
        <h2 id="emu-users">Users</h2>
      </header>
      <form className="inline-form" onSubmit={submit} aria-label="Add user">
        <TextField
          label="Display name"
          name="displayName"
          value={displayName}
          onChange={setDisplayName}
          messages={messagesFor(action.error, 'displayName')}
        />
        <button type="submit" disabled={action.busy}>
          Add user
        </button>
      </form>
      <ErrorNotice error={action.error} shownFields={['displayName']} />
      {users.length === 0 ? (
        <p className="note empty">No users yet.</p>
      ) : (
        <table className="grid" data-testid="users-table">
          <thead>
            <tr>
              <th scope="col">User ID</th>
              <th scope="col">Display name</th>
            </tr>
          </thead>
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
    </section>
  );
}

function Devices({
  state,
  productIds,
  onChanged,
}: {
  state: EmulatorState;
  productIds: { id: string; name: string }[];
  onChanged: () => void;
}) {
  const api = useApi();
  const productList = useId();
  const userList = useId();
  const register = useAction();
  const [productId, setProductId] = useState('');
  const [psdi, setPsdi] = useState('');
  const [userId, setUserId] = useState('');
  const [registered, setRegistered] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setRegistered(undefined);
    const ok = await register.run(async () => {
      const result = await api.emulator.registerDevice({
        productId,
        productSpecificDeviceId: psdi,
        userId: userId.trim() === '' ? undefined : userId,
      });
      setRegistered(result.device.id);
    });
    if (ok) {
      setPsdi('');
      onChanged();
    }
  }

  return (
    <section className="panel" aria-labelledby="emu-devices">
      <header className="panel-header">
        <h2 id="emu-devices">Devices</h2>
      </header>
      <form className="inline-form" onSubmit={submit} aria-label="Register device">
        <TextField
          label="Product ID"
          name="productId"
          value={productId}
          onChange={setProductId}
          list={productList}
          mono
          messages={messagesFor(register.error, 'productId')}
        />
        <datalist id={productList}>
          {productIds.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </datalist>
        <TextField
          label="Product-specific device ID (PSDI)"
          name="productSpecificDeviceId"
          value={psdi}
          onChange={setPsdi}
          mono
          messages={messagesFor(register.error, 'productSpecificDeviceId')}
        />
        <TextField
          label="Link to user (optional)"
          name="userId"
          value={userId}
          onChange={setUserId}
          list={userList}
          mono
          placeholder="U + 32 hex digits"
          messages={messagesFor(register.error, 'userId')}
          className="grow"
        />
        <datalist id={userList}>
          {state.users.map((u) => (
            <option key={u.userId} value={u.userId}>
              {u.displayName}
            </option>
          ))}
        </datalist>
        <button type="submit" className="primary" disabled={register.busy}>
          Register device
        </button>
      </form>
      <ErrorNotice
        error={register.error}
        shownFields={['productId', 'productSpecificDeviceId', 'userId']}
      />
      {registered && (
        <p className="notice" role="status" data-testid="registered-device">
          Registered device <code className="mono">{registered}</code>
        </p>
      )}
      {state.devices.length === 0 ? (
        <p className="note empty">No devices registered.</p>
      ) : (
        <table className="grid" data-testid="devices-table">
          <thead>
            <tr>
              <th scope="col">Device ID</th>
              <th scope="col">Product ID</th>
              <th scope="col">PSDI</th>
              <th scope="col">Linked user</th>
            </tr>
          </thead>
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
    </section>
  );
}

type FaultChoice = '429' | '500' | '503' | 'latency';

function Faults({ faults, onChanged }: { faults: EmulatorState['faults']; onChanged: () => void }) {
  const api = useApi();
  const kindId = useId();
  const inject = useAction();
  const clear = useAction();
  const [choice, setChoice] = useState<FaultChoice>('429');
  const [latencyMs, setLatencyMs] = useState('2000');
  const [count, setCount] = useState('1');
  const [pathPrefix, setPathPrefix] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const common = { count: Number(count), pathPrefix: pathPrefix.trim() || undefined };
    const ok = await inject.run(() =>
      api.emulator.injectFault(
        choice === 'latency'
          ? { kind: 'latency', latencyMs: Number(latencyMs), ...common }
          : { kind: 'status', status: Number(choice) as 429 | 500 | 503, ...common },
      ),
    );
    if (ok) onChanged();
  }

  return (
    <section className="panel" aria-labelledby="emu-faults">
      <header className="panel-header">
        <h2 id="emu-faults">Faults</h2>
        <button
          type="button"
          className="link"
          disabled={clear.busy || faults.length === 0}
          onClick={() =>
            void clear.run(() => api.emulator.clearFaults({})).then((ok) => ok && onChanged())
          }
        >
          Clear all
        </button>
      </header>
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
            value={latencyMs}
            onChange={setLatencyMs}
            inputMode="numeric"
            className="number"
            messages={messagesFor(inject.error, 'latencyMs')}
          />
        )}
        <TextField
          label="Next N requests"
          value={count}
          onChange={setCount}
          inputMode="numeric"
          className="number"
          messages={messagesFor(inject.error, 'count')}
        />
        <TextField
          label="Path prefix (optional)"
          value={pathPrefix}
          onChange={setPathPrefix}
          mono
          placeholder="/things/v1"
          messages={messagesFor(inject.error, 'pathPrefix')}
        />
        <button type="submit" disabled={inject.busy}>
          Inject
        </button>
      </form>
      <ErrorNotice
        error={inject.error ?? clear.error}
        shownFields={['latencyMs', 'count', 'pathPrefix']}
      />
      {faults.length === 0 ? (
        <p className="note empty">No faults: requests are answered normally.</p>
      ) : (
        <table className="grid" data-testid="faults-table">
          <thead>
            <tr>
              <th scope="col">Fault</th>
              <th scope="col">Remaining</th>
              <th scope="col">Paths</th>
            </tr>
          </thead>
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
    </section>
  );
}

function ActivityLog({ initial, live }: { initial: Activity[]; live: Activity[] }) {
  const entries = useMemo(() => {
    const bySeq = new Map<number, Activity>();
    for (const a of [...initial, ...live]) bySeq.set(a.seq, a);
    return [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, LOG_LIMIT);
  }, [initial, live]);

  return (
    <section className="panel" aria-labelledby="emu-activity">
      <header className="panel-header">
        <h2 id="emu-activity">Activity</h2>
        <span className="muted">newest first, live</span>
      </header>
      {entries.length === 0 ? (
        <p className="note empty">No requests yet.</p>
      ) : (
        <div className="scroll">
          <table className="grid log" data-testid="activity-log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Method</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">Request ID</th>
                <th scope="col">Duration</th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((a) => (
                <tr key={a.seq} data-testid="activity-row">
                  <td className="mono">{formatClockTime(a.at)}</td>
                  <td className="mono">{a.method}</td>
                  <td className="mono">{a.path}</td>
                  <td className={`mono ${a.status >= 400 ? 'bad' : 'good'}`}>{a.status}</td>
                  <td className="mono">{a.requestId}</td>
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
    </section>
  );
}
