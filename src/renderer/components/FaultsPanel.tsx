// Every fault the simulated bench can put on a board, in one panel the BLE bench, Provisioning and
// Scenarios pages share: a refused connection, the link dropped during a write, an ATT error of
// your choice on a characteristic, a slow link, a refused pairing. It follows `sim:boards`, so a
// fault set on one page (or through the contract) shows on the others without a Refresh; faults
// persist with the bench (sim-bench-setup.json).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { usesSimulatedBench } from '../../core/usecases/bench/bench-schema';
import type { SimBoard } from '../../core/app/contracts/sim';
import { attErrorName, ATT_ERROR } from '../../core/ble/att/codes';
import { formatUuid, sameUuid } from '../../core/ble/port';
import { resolveName } from '../../core/ble/names/resolver';
import { useApi } from '../lib/api-context';
import { messagesFor } from '../lib/errors';
import { useAction } from '../lib/use-action';
import { scanRestartKey, useBleStatus } from '../lib/use-ble-status';
import { ErrorNotice } from './ErrorNotice';
import { LoadFailure } from './LoadFailure';
import { Panel } from './Panel';
import { SelectField } from './SelectField';
import { TextField } from './TextField';

const ATT_CODES = [...Object.values(ATT_ERROR)].map((code) => ({
  value: String(code),
  label: `0x${code.toString(16).padStart(2, '0')} ${attErrorName(code)}`,
}));

/** A characteristic of the board by its name (the board file's, else the SIG's) and UUID. */
function characteristicLabel(board: SimBoard, uuid: string): string {
  const names = Object.fromEntries(
    board.characteristics.flatMap((c) => (c.name ? [[c.uuid, c.name]] : [])),
  );
  const name = resolveName(uuid, { board: names, kinds: ['characteristic'] })?.name;
  return name ? `${name} (${formatUuid(uuid)})` : formatUuid(uuid);
}

/** The board's active faults in words, as the summary lists them. */
function faultWords(board: SimBoard): string[] {
  const faults = board.faults;
  const words: string[] = [];
  if (faults.refuseConnection) words.push('refuses connections');
  if (faults.dropLinkDuringWrite)
    words.push(
      `drops the link during write ${faults.dropLinkAfterWrites + 1}` +
        (faults.dropLinkCharacteristic
          ? ` to ${characteristicLabel(board, faults.dropLinkCharacteristic)}`
          : ' (any characteristic)'),
    );
  if (faults.refuseAccess)
    words.push(
      `answers ${faults.refuseAccess.operation}s` +
        (faults.refuseAccess.characteristic
          ? ` of ${characteristicLabel(board, faults.refuseAccess.characteristic)}`
          : '') +
        ` with ATT 0x${faults.refuseAccess.code.toString(16).padStart(2, '0')} ${attErrorName(faults.refuseAccess.code)}`,
    );
  if (faults.slowLinkFactor > 1) words.push(`slow link ×${faults.slowLinkFactor}`);
  if (faults.refusePairing) words.push('refuses pairing');
  return words;
}

/** The simulated boards, kept current by `sim:boards` and read again from each new BLE process. */
function useSimBoards(generation: string) {
  const api = useApi();
  const [boards, setBoards] = useState<SimBoard[]>();
  const [error, setError] = useState<unknown>();
  const reload = useCallback(() => {
    api.sim.listBoards({}).then(
      (list) => {
        setBoards(list);
        setError(undefined);
      },
      (err: unknown) => setError(err),
    );
  }, [api]);
  // Read again from each new BLE process (generation).
  useEffect(reload, [reload, generation]);
  useEffect(() => api.on('sim:boards', setBoards), [api]);
  return { boards, error, reload };
}

export function FaultsPanel() {
  const ble = useBleStatus();
  const generation = scanRestartKey(ble.status);
  if (!ble.status || !usesSimulatedBench(ble.status)) return null;
  return <Faults generation={generation} />;
}

function Faults({ generation }: { generation: string }) {
  const { boards, error, reload } = useSimBoards(generation);
  const [chosenId, setChosenId] = useState<string>();
  const list = boards ?? [];
  const board = list.find((b) => b.id === chosenId) ?? list[0];
  const faulty = list.filter((b) => faultWords(b).length > 0);

  return (
    <Panel
      title="Simulated faults"
      testId="faults-panel"
      actions={
        <span className="muted" data-testid="faults-count">
          {faulty.length} of {list.length} board{list.length === 1 ? '' : 's'} with faults
        </span>
      }
    >
      {error !== undefined && <LoadFailure error={error} onRetry={reload} />}
      {faulty.length > 0 && (
        <ul className="faults-summary" aria-label="Active faults">
          {faulty.map((b) => (
            <li key={b.id} data-testid="active-fault" data-board-id={b.id}>
              <strong>{b.name}</strong> {faultWords(b).join('; ')}
            </li>
          ))}
        </ul>
      )}
      {board ? (
        <>
          <SelectField
            label="Board"
            value={board.id}
            options={list.map((b) => ({ value: b.id, label: `${b.name} · ${b.address}` }))}
            onChange={setChosenId}
          />
          {/* A fresh form whenever the board's faults change, from here or elsewhere. */}
          <FaultForm key={`${board.id}:${JSON.stringify(board.faults)}`} board={board} />
        </>
      ) : (
        <p className="note empty">No boards on the simulated bench.</p>
      )}
    </Panel>
  );
}

function FaultForm({ board }: { board: SimBoard }) {
  const api = useApi();
  const save = useAction<SimBoard>();
  const f = board.faults;
  const [refuseConnection, setRefuseConnection] = useState(f.refuseConnection);
  const [drop, setDrop] = useState(f.dropLinkDuringWrite);
  const [dropAfter, setDropAfter] = useState(String(f.dropLinkAfterWrites));
  /** The table's own spelling of a UUID, so the picker shows it chosen. */
  const asListed = (uuid: string | undefined) =>
    uuid === undefined
      ? ''
      : (board.characteristics.find((c) => sameUuid(c.uuid, uuid))?.uuid ?? uuid);
  const [dropOn, setDropOn] = useState(asListed(f.dropLinkCharacteristic));
  const [attOperation, setAttOperation] = useState(f.refuseAccess?.operation ?? '');
  const [attOn, setAttOn] = useState(asListed(f.refuseAccess?.characteristic));
  const [attCode, setAttCode] = useState(
    String(f.refuseAccess?.code ?? ATT_ERROR.writeNotPermitted),
  );
  const [slow, setSlow] = useState(String(f.slowLinkFactor));
  const [refusePairing, setRefusePairing] = useState(f.refusePairing);

  function apply(event: FormEvent) {
    event.preventDefault();
    void save.run(() =>
      api.sim.setFaults({
        boardId: board.id,
        refuseConnection,
        dropLinkDuringWrite: drop,
        dropLinkAfterWrites: Number(dropAfter),
        dropLinkCharacteristic: dropOn.trim() === '' ? null : dropOn.trim(),
        slowLinkFactor: Number(slow),
        refusePairing,
        refuseAccess:
          attOperation === ''
            ? null
            : {
                operation: attOperation as 'read' | 'write',
                characteristic: attOn.trim() === '' ? undefined : attOn.trim(),
                code: Number(attCode),
              },
      }),
    );
  }

  const check = (label: string, checked: boolean, set: (v: boolean) => void) => (
    <label className="faults-check">
      <input type="checkbox" checked={checked} onChange={(e) => set(e.target.checked)} />
      {label}
    </label>
  );
  // Chosen by name from the board's own GATT; a fault set elsewhere on a characteristic the
  // table no longer has stays choosable.
  const choices = (current: string) => {
    const known = board.characteristics.map((c) => c.uuid);
    const extra = current && !known.some((u) => sameUuid(u, current)) ? [current] : [];
    return [...known, ...extra].map((uuid) => ({
      value: uuid,
      label: characteristicLabel(board, uuid),
    }));
  };

  return (
    <form className="faults-form" aria-label={`Faults of ${board.name}`} onSubmit={apply}>
      <div className="faults-row">
        {check('Refuse connection', refuseConnection, setRefuseConnection)}
        {check('Refuse pairing', refusePairing, setRefusePairing)}
        <TextField
          label="Slow link ×"
          className="faults-number"
          inputMode="decimal"
          value={slow}
          onChange={setSlow}
          messages={messagesFor(save.error, 'slowLinkFactor')}
        />
      </div>
      <div className="faults-row">
        {check('Drop the link during a write', drop, setDrop)}
        <TextField
          label="Writes let through first"
          className="faults-number"
          inputMode="numeric"
          value={dropAfter}
          onChange={setDropAfter}
          messages={messagesFor(save.error, 'dropLinkAfterWrites')}
        />
        <SelectField
          label="Write to (characteristic)"
          className="faults-uuid"
          value={dropOn}
          options={choices(dropOn)}
          placeholder="Any characteristic"
          onChange={setDropOn}
        />
      </div>
      <div className="faults-row">
        <SelectField
          label="ATT error on"
          value={attOperation}
          options={[
            { value: '', label: 'No ATT error' },
            { value: 'read', label: 'reads' },
            { value: 'write', label: 'writes' },
          ]}
          onChange={setAttOperation}
        />
        <SelectField
          label="of (characteristic)"
          className="faults-uuid"
          value={attOn}
          options={choices(attOn)}
          placeholder="Any characteristic"
          onChange={setAttOn}
        />
        <SelectField
          label="ATT error code"
          value={attCode}
          options={ATT_CODES}
          onChange={setAttCode}
        />
        <button type="submit" disabled={save.busy}>
          Apply faults
        </button>
      </div>
      <ErrorNotice error={save.error} shownFields={['slowLinkFactor', 'dropLinkAfterWrites']} />
    </form>
  );
}
