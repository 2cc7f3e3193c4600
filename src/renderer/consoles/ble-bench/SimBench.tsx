// The simulated bench: which boards lie on it, loading more (built-in board files or a file
// from disk, whose mistakes are named by field), and what a person would do to a board on a
// tray: press its button, factory-reset it, take it away. Its faults are in the faults panel
// (components/FaultsPanel.tsx), shared with the Provisioning and Scenarios pages.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { SimBoard } from '../../../core/app/contracts/sim';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useResource } from '../../lib/use-resource';
import { useLoad } from '../../lib/use-load';
import { FileButton } from '../../components/FileButton';
import { LoadFailure } from '../../components/LoadFailure';

const FIRST_ROWS = 50;

/** `generation` changes with the BLE process: the boards are read again from the new one. */
export function SimBench({ generation }: { generation: string }) {
  const api = useApi();
  const boards = useResource(
    // eslint-disable-next-line react-hooks/exhaustive-deps -- generation: read again on a new process
    useCallback(() => api.sim.listBoards({}), [api, generation]),
  );
  const files = useLoad((api) => api.sim.listBoardFiles({}), []);
  const load = useAction<SimBoard[]>();
  const change = useAction<unknown>();
  const [builtIn, setBuiltIn] = useState('');
  const [showAll, setShowAll] = useState(false);
  const [loadedNote, setLoadedNote] = useState<string>();

  // Changes made elsewhere (the faults panel, another page, a reset) show at once.
  const { reload } = boards;
  useEffect(() => api.on('sim:boards', reload), [api, reload]);
  const list = boards.value ?? [];
  const shown = showAll ? list : list.slice(0, FIRST_ROWS);
  const chosenFile = builtIn || files.value?.[0]?.name || '';

  async function loaded(from: string, call: () => Promise<SimBoard[]>) {
    setLoadedNote(undefined);
    const ok = await load.run(call);
    if (ok) {
      boards.reload();
      setLoadedNote(`Loaded from ${from}.`);
    }
  }

  function loadBuiltIn(event: FormEvent) {
    event.preventDefault();
    if (chosenFile) void loaded(chosenFile, () => api.sim.loadBuiltIn({ name: chosenFile }));
  }

  function act(call: () => Promise<unknown>) {
    void change.run(async () => {
      const result = await call();
      boards.reload();
      return result;
    });
  }

  return (
    <Panel
      title="Simulated bench"
      testId="sim-bench"
      actions={
        <>
          <span className="muted" data-testid="sim-board-count">
            {list.length} board{list.length === 1 ? '' : 's'}
          </span>
          <button type="button" className="link" onClick={boards.reload}>
            Refresh
          </button>
        </>
      }
    >
      <form className="inline-form" onSubmit={loadBuiltIn} aria-label="Load boards">
        <div className="field">
          <label htmlFor="sim-board-file">Built-in board file</label>
          <select
            id="sim-board-file"
            value={chosenFile}
            onChange={(event) => setBuiltIn(event.target.value)}
            disabled={!files.value?.length}
          >
            {files.value?.map((f) => (
              <option key={f.name} value={f.name} title={f.description}>
                {f.name}
                {f.description ? ` — ${f.description}` : ''}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={load.busy || !chosenFile}>
          Load built-in
        </button>
        <FileButton
          label="Load board file…"
          inputLabel="Board file"
          accept=".json,application/json"
          testId="board-file"
          disabled={load.busy}
          onFile={(file) => void loaded(file.fileName, () => api.sim.loadBoards(file))}
          onError={(error) => void load.run(() => Promise.reject(error))}
        />
        {loadedNote && !load.error && (
          <span className="notice" role="status">
            {loadedNote}
          </span>
        )}
        <ErrorNotice error={load.error} testId="board-file-error" />
      </form>
      {files.error !== undefined && <LoadFailure error={files.error} onRetry={files.reload} />}
      {boards.error !== undefined && <LoadFailure error={boards.error} onRetry={boards.reload} />}
      <ErrorNotice error={change.error} testId="sim-board-error" />
      {list.length === 0 ? (
        <p className="note empty">No boards on the bench. Load a board file.</p>
      ) : (
        <div className="table-scroll">
          <table className="grid ble-sim-boards" aria-label="Simulated boards">
            <TableHead columns={['Board', 'State']} rowActions />
            <tbody>
              {shown.map((board) => (
                <tr key={board.id} data-testid="sim-board" data-board-id={board.id}>
                  <td>
                    <div className="name">{board.name}</div>
                    <div className="mono muted">{board.address}</div>
                    <div className="hint">from {board.source}</div>
                  </td>
                  <td>
                    {board.connected && <span className="badge good">connected</span>}
                    {board.provisioned ? (
                      <span className="badge good" title={board.provisioned.serviceUuid}>
                        provisioned · PSDI <code>{board.provisioned.psdi}</code>
                      </span>
                    ) : (
                      <span className="badge">blank</span>
                    )}
                    <div className="hint">advertising every {board.advertising.intervalMs} ms</div>
                  </td>
                  <td className="row-actions">
                    {board.hasButton && (
                      <button
                        type="button"
                        aria-label={`Press button on ${board.name}`}
                        disabled={change.busy}
                        onClick={() => act(() => api.sim.pressButton({ boardId: board.id }))}
                      >
                        Press button
                      </button>
                    )}
                    <button
                      type="button"
                      aria-label={`Factory reset ${board.name}`}
                      disabled={change.busy}
                      onClick={() => act(() => api.sim.factoryReset({ boardId: board.id }))}
                    >
                      Factory reset
                    </button>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Remove ${board.name}`}
                      disabled={change.busy}
                      onClick={() => act(() => api.sim.removeBoard({ boardId: board.id }))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.length > FIRST_ROWS && (
        <button type="button" className="link" onClick={() => setShowAll(!showAll)}>
          {showAll ? `Show the first ${FIRST_ROWS}` : `Show all ${list.length} boards`}
        </button>
      )}
    </Panel>
  );
}
