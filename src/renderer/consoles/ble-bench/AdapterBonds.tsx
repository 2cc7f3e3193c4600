// The station's bonds by adapter: each bonded board with its key and a Forget, and Forget all
// for an adapter after a confirmation. The list follows `ble:bonds` in every window, and is
// read again when the adapters or the BLE process change (docs/decisions/ble-and-hci.md, "Bonds
// on the BLE bench"). Where they are kept and under which key is said; bonds kept in memory
// only are said plainly, and a damaged store is named with a reset that sets it aside after a
// confirmation naming the file (docs/decisions/security-and-hardening.md, "A damaged bond store").
import { useEffect, useState } from 'react';
import type { AdapterBonds as Bonds, BleStatus } from '../../../core/usecases/bench/bench-schema';
import {
  bondStorageWords,
  type BondStorage,
  type BondSummary,
} from '../../../core/ble/security-manager/bond-summary';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { formatTime } from '../../lib/format';
import { keyLabel, methodLabel } from '../../lib/link-security-words';

type Adapter = Bonds['adapters'][number];

/** Changes when the bonds shown may have: other adapters, identities or BLE process. */
function listKey(status: BleStatus): string {
  const adapters = status.adapters.map((a) => `${a.spec}=${a.identity?.address ?? ''}`);
  return `${adapters.join(',')}:${status.host.pid ?? ''}`;
}

function boardLabel(bond: BondSummary): string {
  return bond.name ? `${bond.name} (${bond.board})` : bond.board;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function bondCount(n: number): string {
  return n === 1 ? '1 bond' : `${n} bonds`;
}

export function AdapterBonds({ status }: { status: BleStatus }) {
  const api = useApi();
  const [bonds, setBonds] = useState<Bonds>();
  const [loadError, setLoadError] = useState<unknown>();
  /** What a reset of a damaged store did: said after the damaged notice is gone. */
  const [resetSaid, setResetSaid] = useState<string>();
  const key = listKey(status);
  useEffect(() => api.on('ble:bonds', setBonds), [api]);
  useEffect(() => {
    let current = true;
    api.ble.listBonds({}).then(
      (answer) => {
        if (!current) return;
        setBonds(answer);
        setLoadError(undefined);
      },
      (err: unknown) => {
        if (current) setLoadError(err);
      },
    );
    return () => {
      current = false;
    };
  }, [api, key]);

  return (
    <Panel title="Bonds" testId="ble-bonds">
      {bonds?.storage.kind === 'memory' && (
        <p className="warning-box" data-testid="bonds-memory">
          <strong>In memory only.</strong> {capitalized(bonds.storage.reason)}
        </p>
      )}
      {bonds?.storage.kind === 'encrypted' && (
        <p className="muted" data-testid="bonds-storage">
          {capitalized(bondStorageWords(bonds.storage))}.
        </p>
      )}
      {bonds?.storage.kind === 'damaged' && (
        <DamagedBonds storage={bonds.storage} onReset={setResetSaid} />
      )}
      {resetSaid && (
        <p className="note" role="status" data-testid="bonds-reset-said">
          {resetSaid}
        </p>
      )}
      {bonds ? (
        bonds.adapters.map((adapter) => <AdapterBondList key={adapter.index} adapter={adapter} />)
      ) : (
        <p className="note" role="status">
          {loadError === undefined ? 'Loading the bonds…' : 'The bonds could not be read.'}
        </p>
      )}
      <ErrorNotice error={loadError} testId="bonds-load-error" />
      <p className="note">
        Forgetting a bond leaves a link open to that board encrypted until it drops; the next
        connection pairs afresh. A board that keeps its own side may refuse that pairing without a
        passkey or numeric comparison: forget this station on the board too.
      </p>
    </Panel>
  );
}

/** A damaged store: what is wrong, and a reset that sets the file aside after a confirmation. */
function DamagedBonds({
  storage,
  onReset,
}: {
  storage: Extract<BondStorage, { kind: 'damaged' }>;
  onReset: (said: string) => void;
}) {
  const api = useApi();
  const action = useAction<{ setAsideAs: string | null }>();
  const [confirming, setConfirming] = useState(false);
  const reset = () =>
    void action.run(async () => {
      setConfirming(false);
      const answer = await api.ble.resetBonds({});
      onReset(
        answer.setAsideAs
          ? `Set aside as ${answer.setAsideAs}; a new bond store started.`
          : 'Nothing was damaged any more: nothing was set aside.',
      );
      return answer;
    });
  return (
    <div className="warning-box" data-testid="bonds-damaged">
      <p>
        <strong>Bonds are not being kept.</strong> <code>{storage.file}</code> is damaged:{' '}
        {storage.reason}. Pairings work, but no bond is kept until it is reset.
      </p>
      {!confirming ? (
        <button type="button" disabled={action.busy} onClick={() => setConfirming(true)}>
          Reset bond store…
        </button>
      ) : (
        <div role="alertdialog" aria-label="Reset the bond store" data-testid="bonds-reset-confirm">
          <p>
            Set <code>{storage.file}</code> aside (renamed with the time) and start a new bond
            store? Every board bonded with this station must pair again.
          </p>
          <button type="button" onClick={reset}>
            Set aside and start anew
          </button>{' '}
          <button type="button" className="link" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNotice error={action.error} testId="bonds-reset-error" />
    </div>
  );
}

function AdapterBondList({ adapter }: { adapter: Adapter }) {
  const api = useApi();
  const action = useAction<{ forgotten: number }>();
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState<string>();
  const { identity } = adapter;
  const title = `Adapter ${adapter.index + 1}`;
  const forget = (board?: string) =>
    void action.run(async () => {
      setConfirming(false);
      setSaid(undefined);
      const answer = await api.ble.forgetBonds({ identity: identity!.address, board });
      setSaid(`Forgot ${bondCount(answer.forgotten)}.`);
      return answer;
    });
  return (
    <section
      className="ble-bonds-adapter"
      aria-label={`Bonds of adapter ${adapter.index + 1}`}
      data-testid="adapter-bonds"
      data-spec={adapter.spec}
    >
      <header className="ble-bonds-header">
        <h3>
          {title} <code>{adapter.spec}</code>
          {identity && (
            <span className="muted">
              {' '}
              · identity <code>{identity.address}</code>
            </span>
          )}
        </h3>
        {adapter.bonds.length > 0 && (
          <button
            type="button"
            disabled={action.busy}
            aria-label={`Forget all bonds of adapter ${adapter.index + 1}`}
            onClick={() => {
              setSaid(undefined);
              setConfirming(true);
            }}
          >
            Forget all
          </button>
        )}
      </header>
      {!identity ? (
        <p className="muted">
          This adapter has no identity of its own (yet, or on <code>native</code>): it keeps no
          bonds.
        </p>
      ) : adapter.bonds.length === 0 ? (
        <p className="muted" data-testid="bonds-empty">
          No bonds on this adapter
        </p>
      ) : (
        <table className="ble-bonds">
          <thead>
            <tr>
              <th>Board</th>
              <th>Key</th>
              <th>Pairing</th>
              <th>Bonded</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {adapter.bonds.map((bond) => (
              <tr key={bond.board} data-testid="bond-row" data-board={bond.board}>
                <td>
                  {bond.name && <div>{bond.name}</div>}
                  <code>{bond.board}</code>
                </td>
                <td>{keyLabel(bond.security)}</td>
                <td>{methodLabel(bond.security)}</td>
                <td>{formatTime(Date.parse(bond.bondedAt))}</td>
                <td>
                  <button
                    type="button"
                    disabled={action.busy}
                    aria-label={`Forget ${boardLabel(bond)}`}
                    onClick={() => forget(bond.board)}
                  >
                    Forget
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirming && (
        <div
          className="warning-box"
          role="alertdialog"
          aria-label={`Forget all bonds of adapter ${adapter.index + 1}`}
          data-testid="bonds-confirm"
        >
          <p>
            Forget {bondCount(adapter.bonds.length)} of {title}:{' '}
            {adapter.bonds.map(boardLabel).join(', ')}? Each board pairs afresh on its next
            connection.
          </p>
          <button type="button" onClick={() => forget()}>
            Forget all
          </button>{' '}
          <button type="button" className="link" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {said && (
        <p className="note" role="status" data-testid="bonds-said">
          {said}
        </p>
      )}
      <ErrorNotice error={action.error} testId="bonds-error" />
    </section>
  );
}
