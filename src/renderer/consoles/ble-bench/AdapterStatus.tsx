// The station's adapters as the user needs to know them: each one's state, links in use and
// trace, what to do when one is not usable, a picker to add and remove specs (checked with the
// one parser as they are typed), and the BLE process with its crashes and a restart. A change
// that drops links names them and asks first; every change says afterwards what it did
// (docs/decisions.md, "Adapters change without a restart").
import { useCallback, useId, useState } from 'react';
import {
  MAX_ADAPTERS,
  type AdapterStatus as Adapter,
  type BleStatus,
} from '../../../core/usecases/bench/bench-schema';
import { formatAdapterSpec, parseAdapterSpec } from '../../../core/ble/adapter-spec';
import { IDENTITY_SOURCE_LABEL } from '../../../core/ble/adapter-identity';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TraceButton } from '../../components/TraceButton';
import { useApi } from '../../lib/api-context';
import { toAppError } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { useSaidInView } from '../../lib/use-said-in-view';
import { useLoad } from '../../lib/use-load';
import { formatTime } from '../../lib/format';
import type { LinkRecord } from '../../../core/ble/link-record';
import { DongleGuide } from './DongleGuide';

/** Links in words: `DB Sensor (d6:3a:41:00:20:01)`. */
function linkList(links: readonly LinkRecord[]): string {
  return links.map((l) => (l.name ? `${l.name} (${l.address})` : l.address)).join(', ');
}

function linkCount(n: number): string {
  return n === 1 ? '1 link' : `${n} links`;
}

/** The specs a change adds and the ones it removes, as the user reads them. */
function changeOf(before: readonly string[], after: readonly string[]) {
  return {
    added: after.filter((spec) => !before.includes(spec)),
    removed: before.filter((spec) => !after.includes(spec)),
  };
}

/** What an adapter change did, in one sentence. */
function describeChange(before: readonly string[], after: readonly string[], closed: LinkRecord[]) {
  const { added, removed } = changeOf(before, after);
  const did = [
    added.length > 0 && `Added ${added.join(', ')}`,
    removed.length > 0 && `Removed ${removed.join(', ')}`,
  ]
    .filter(Boolean)
    .join('; ');
  const links = closed.length
    ? `dropped ${linkCount(closed.length)}: ${linkList(closed)}.`
    : 'every link stayed up.';
  return `${did || 'Adapters changed'} without restarting the BLE process; ${links}`;
}

/**
 * An adapter in words: its spec, and beside another of that spec what tells them apart, its
 * identity (`sim (00:1a:7d:da:71:02)`).
 */
function adapterName(adapter: Adapter, adapters: readonly Adapter[]): string {
  const twin = adapters.some((a) => a.spec === adapter.spec && a.id !== adapter.id);
  return twin && adapter.identity ? `${adapter.spec} (${adapter.identity.address})` : adapter.spec;
}

/** A change waiting for the user's word because it drops links. */
interface Pending {
  /** The new list; none: a restart of the BLE process, or the removal of `remove`. */
  adapters?: string[];
  /** The open adapter to remove, by its id (docs/decisions/ble-and-hci.md, "Adapters addressed by id"). */
  remove?: Adapter & { id: string };
  drops: LinkRecord[];
}

const STATE_LABELS: Record<BleStatus['adapterState'], string> = {
  unknown: 'Starting…',
  resetting: 'Resetting',
  unsupported: 'Bluetooth LE not supported',
  unauthorized: 'Bluetooth permission denied',
  poweredOff: 'Bluetooth is off',
  poweredOn: 'Ready',
  noAdapter: 'No adapter found',
};

/** Forms people reach for first; any spec the parser takes may be typed. */
const SUGGESTIONS = [
  { spec: 'sim', hint: 'the simulated bench (again for one more virtual controller)' },
  {
    spec: 'serial:/dev/ttyACM0',
    hint: 'an HCI dongle on a serial port (macOS: /dev/cu.usbmodem…, Windows: COM3)',
  },
  { spec: 'hci0', hint: 'a Linux kernel adapter' },
  {
    spec: 'tcp:127.0.0.1:6402',
    hint: 'HCI over TCP (Android emulator, ser2net, devicebench sim serve)',
  },
  { spec: 'unix:/tmp/bt-server-le', hint: 'HCI over a Unix socket (BlueZ btvirt)' },
  { spec: 'native', hint: "the system's Bluetooth: cannot see a refused write" },
];

/** Why the spec in the field cannot be added, or undefined when it can. */
function problemOf(text: string, adapters: readonly Adapter[]): string | undefined {
  if (!text.trim()) return undefined;
  try {
    const spec = formatAdapterSpec(parseAdapterSpec(text));
    if (spec !== 'sim' && adapters.some((a) => a.spec === spec))
      return `${spec} is already in the list`;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function AdapterStatus({
  status,
  onStatus,
}: {
  status: BleStatus;
  onStatus: (status: BleStatus) => void;
}) {
  const api = useApi();
  const action = useAction<BleStatus>();
  const id = useId();
  const [text, setText] = useState('');
  const ready = status.adapterState === 'poweredOn';
  const { host, adapters } = status;
  const problem = problemOf(text, adapters);
  // This machine's serial ports, likely HCI dongles first, with their USB names.
  const ports = useLoad((api) => api.ble.listSerialPorts({}), []);
  const native = adapters.some((a) => !a.writesConfirmed) || text.trim() === 'native';

  const specs = adapters.map((a) => a.spec);
  const [pending, setPending] = useState<Pending>();
  /** What the last change or restart did. */
  const [said, setSaid] = useState<string>();
  const saidBox = useSaidInView<HTMLParagraphElement>(said);
  const change = async (next: string[], dropLinks: boolean) => {
    const answer = await api.ble.setAdapters({ adapters: next, dropLinks });
    onStatus(answer);
    setSaid(describeChange(specs, next, answer.closed));
    return answer;
  };
  const removeOne = async (adapter: Adapter & { id: string }, dropLinks: boolean) => {
    const answer = await api.ble.removeAdapter({ id: adapter.id, dropLinks });
    onStatus(answer);
    const links = answer.closed.length
      ? `dropped ${linkCount(answer.closed.length)}: ${linkList(answer.closed)}.`
      : 'every link stayed up.';
    setSaid(
      `Removed ${adapterName(adapter, adapters)} without restarting the BLE process; ${links}`,
    );
    return answer;
  };
  const restart = async () => {
    const pid = host.pid;
    const answer = await api.ble.restartHost({});
    onStatus(answer);
    const which =
      pid !== undefined && answer.host.pid !== undefined
        ? ` (pid ${pid} → ${answer.host.pid})`
        : '';
    const closed = answer.closed.length
      ? `it closed ${linkCount(answer.closed.length)}: ${linkList(answer.closed)}.`
      : 'no link was open.';
    setSaid(`Restarted the BLE process${which}; ${closed}`);
    return answer;
  };
  /** Asks first when the change (or the restart) would drop links, naming them. */
  const apply = (next?: string[]) =>
    void action.run(async () => {
      setPending(undefined);
      setSaid(undefined);
      const plan = await api.ble.planAdapters({ adapters: next });
      if (!plan.drops.length) return next ? change(next, false) : restart();
      setPending({ adapters: next, drops: plan.drops });
      return status;
    });
  /**
   * An open adapter goes by its id, so Remove closes the row it is on even beside another of its
   * spec; one the BLE process does not hold (it is not running) leaves the list by its place.
   */
  const remove = (adapter: Adapter, index: number) => {
    const { id } = adapter;
    if (id === undefined) return apply(specs.filter((_, i) => i !== index));
    void action.run(async () => {
      setPending(undefined);
      setSaid(undefined);
      let plan = await api.ble.planAdapters({ remove: id });
      if (!plan.drops.length) {
        try {
          return await removeOne({ ...adapter, id }, false);
        } catch (error) {
          // A link finished on the adapter between the plan and the removal (a Connect just
          // answered): the removal refused to drop it unasked, so the question is asked now.
          if (!toAppError(error).fields.some((f) => f.field === 'dropLinks')) throw error;
          plan = await api.ble.planAdapters({ remove: id });
        }
      }
      setPending({ remove: { ...adapter, id }, drops: plan.drops });
      return status;
    });
  };
  // The question comes into view where it is asked, wherever the page was scrolled to.
  const intoView = useCallback(
    (box: HTMLElement | null) => box?.scrollIntoView({ block: 'nearest' }),
    [],
  );
  const removing = pending?.remove
    ? [adapterName(pending.remove, adapters)]
    : pending?.adapters && changeOf(specs, pending.adapters).removed;
  const confirm = (asked: Pending) =>
    void action.run(() => {
      setPending(undefined);
      if (asked.remove) return removeOne(asked.remove, true);
      return asked.adapters ? change(asked.adapters, true) : restart();
    });

  return (
    <Panel title="Adapters" testId="ble-adapter">
      <div className="ble-adapter">
        <div className="ble-state" data-testid="adapter-state" role="status">
          <span className={`badge ${ready ? 'good' : 'warn'}`}>
            {STATE_LABELS[status.adapterState]}
          </span>
          {/* Each adapter's own guidance sits on its row; this is for the process as a whole. */}
          {!ready && status.guidance && !adapters.some((a) => a.guidance) && (
            <p className="ble-guidance">{status.guidance}</p>
          )}
        </div>
        <div className="ble-host" data-testid="ble-host">
          <span className={host.running ? 'good' : 'bad'}>
            BLE process {host.running ? 'running' : 'stopped'}
            {host.pid !== undefined && <span className="muted"> (pid {host.pid})</span>}
          </span>
          <button type="button" disabled={action.busy} onClick={() => apply()}>
            {action.busy ? 'Working…' : 'Restart BLE process'}
          </button>
        </div>
      </div>
      <table className="ble-adapters" data-testid="adapter-list">
        <tbody>
          {adapters.map((adapter, index) => (
            <tr
              key={adapter.id ?? `${index}-${adapter.spec}`}
              data-testid="adapter-row"
              data-spec={adapter.spec}
            >
              <td>
                <code>{adapter.spec}</code>
                <div className="muted">{adapter.description}</div>
                {adapter.identity && (
                  <div
                    className="ble-identity"
                    data-testid="adapter-identity"
                    title="The address this adapter uses on the air, and where it came from"
                  >
                    <span className="muted">Identity </span>
                    <code>{adapter.identity.address}</code>
                    <span className="muted">
                      {' '}
                      · {IDENTITY_SOURCE_LABEL[adapter.identity.source]}
                    </span>
                  </div>
                )}
              </td>
              <td>
                <span className={`badge ${adapter.state === 'poweredOn' ? 'good' : 'warn'}`}>
                  {STATE_LABELS[adapter.state]}
                </span>
                {adapter.guidance && <div className="ble-guidance">{adapter.guidance}</div>}
              </td>
              <td data-testid="adapter-links">
                {adapter.linkCapacity > 0
                  ? `${adapter.linksInUse}/${adapter.linkCapacity} links`
                  : '—'}
                {!adapter.writesConfirmed && (
                  <div className="warn">writes not confirmed by the board</div>
                )}
              </td>
              <td>
                <TraceButton
                  span={() => ({ from: Date.now() - 5 * 60_000, to: Date.now() })}
                  label="last-5-min"
                  adapter={index}
                />
              </td>
              <td>
                <button
                  type="button"
                  disabled={action.busy || adapters.length === 1}
                  aria-label={`Remove adapter ${index + 1} (${adapter.spec})`}
                  title={adapters.length === 1 ? 'A station keeps at least one adapter' : undefined}
                  onClick={() => remove(adapter, index)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="inline-form ble-add-adapter"
        onSubmit={(event) => {
          event.preventDefault();
          if (problem || !text.trim()) return;
          apply([...specs, formatAdapterSpec(parseAdapterSpec(text))]);
          setText('');
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-spec`}>Add an adapter</label>
          <input
            id={`${id}-spec`}
            list={`${id}-suggestions`}
            value={text}
            placeholder="sim, serial:/dev/ttyACM0, hci0, tcp:host:port…"
            aria-invalid={problem !== undefined}
            aria-describedby={`${id}-problem`}
            onChange={(event) => setText(event.target.value)}
          />
          <datalist id={`${id}-suggestions`}>
            {(ports.value ?? []).map((port) => (
              <option key={port.adapter} value={port.adapter}>
                {[port.knownAs ?? port.manufacturer ?? 'serial port', port.likelyHci && '(HCI)']
                  .filter(Boolean)
                  .join(' ')}
              </option>
            ))}
            {SUGGESTIONS.map((s) => (
              <option key={s.spec} value={s.spec}>
                {s.hint}
              </option>
            ))}
          </datalist>
        </div>
        <button
          type="submit"
          disabled={
            action.busy || !text.trim() || problem !== undefined || adapters.length >= MAX_ADAPTERS
          }
        >
          Add
        </button>
        {problem && (
          <span
            id={`${id}-problem`}
            className="field-error"
            role="alert"
            data-testid="adapter-spec-problem"
          >
            {problem}
          </span>
        )}
      </form>
      <p className="note" data-testid="adapter-help">
        Dongles that work: <WorkingDongles />; on Linux also the kernel&apos;s <code>hci0</code>. No
        hardware: <code>sim</code>. Flashing and setting them up: <DongleGuide />.
      </p>
      {native && (
        <p className="warning-box" data-testid="native-warning">
          The system&apos;s Bluetooth (<code>native</code>) reports every write as accepted, even
          one the board refused, and keeps no HCI trace: its writes are marked &ldquo;not confirmed
          by the board&rdquo; and provisioning trusts only the read-back. An HCI dongle gives the
          same host stack, ATT errors and traces on every OS: <WorkingDongles />.
        </p>
      )}
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
      {pending && (
        <div
          className="warning-box"
          ref={intoView}
          role="alertdialog"
          aria-label="Links will drop"
          data-testid="adapter-confirm"
        >
          <p>
            {pending.adapters || pending.remove
              ? removing?.length
                ? `Removing ${removing.join(', ')}`
                : 'This change'
              : 'Restarting the BLE process'}{' '}
            drops {linkCount(pending.drops.length)}: {linkList(pending.drops)}.
          </p>
          <button type="button" onClick={() => confirm(pending)}>
            {pending.remove
              ? 'Remove and drop'
              : pending.adapters
                ? 'Change and drop'
                : 'Restart and drop'}
          </button>{' '}
          <button type="button" className="link" onClick={() => setPending(undefined)}>
            Cancel
          </button>
        </div>
      )}
      {said && (
        <p className="note" role="status" data-testid="adapter-said" ref={saidBox}>
          {said}
        </p>
      )}
      {/* Under the list and the restart button it came from. */}
      <ErrorNotice error={action.error} testId="ble-mode-error" />
    </Panel>
  );
}

/** The HCI dongles known to work (README.md, "Adapters and dongles"), said the same everywhere. */
function WorkingDongles() {
  return (
    <>
      an nRF52840 dongle or DK with Zephyr&apos;s <code>hci_uart</code>, an ESP32 in HCI-UART mode,
      or TI / Silicon Labs HCI firmware, as <code>serial:&lt;port&gt;</code>
    </>
  );
}
