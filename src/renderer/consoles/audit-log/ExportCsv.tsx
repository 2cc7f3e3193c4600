// Exporting what the search shows as CSV, at any size: in the app the main process asks where
// to save and streams the file; in a browser the bench server streams a download. Either way
// the export reports its rows as it goes (docs/decisions.md, "Audit log off the window's
// thread, exports as streams").
import { useEffect, useRef, useState } from 'react';
import {
  AUDIT_EXPORT_PATH,
  type AuditExportInput,
  type AuditExportProgress,
} from '../../../core/app/contracts/audit';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';

const count = (n: number) => n.toLocaleString('en-US');
const records = (n: number) => `${count(n)} record${n === 1 ? '' : 's'}`;

export function ExportCsv({
  query,
  matching,
}: {
  query: AuditExportInput['query'];
  /** What the search counted, shown before an export starts. */
  matching: number | undefined;
}) {
  const api = useApi();
  // The export this page started: its progress events, and no other window's, are shown.
  const [exportId, setExportId] = useState(() => crypto.randomUUID());
  const watched = useRef<{ exportId: string; query: typeof query } | undefined>(undefined);
  const [last, setLast] = useState<{ progress: AuditExportProgress; query: typeof query }>();
  // A new search shows its own count, not the last export's outcome.
  const progress = last?.query === query ? last.progress : undefined;
  const save = useAction<{ saved: boolean; file?: string }>();
  useEffect(
    () =>
      api.on('audit:exportProgress', (p) => {
        const started = watched.current;
        if (p.exportId !== started?.exportId) return;
        setLast({ progress: p, query: started.query });
        // The next export gets an id of its own once this one has ended.
        if (p.done) setExportId(crypto.randomUUID());
      }),
    [api],
  );
  // The link's address must not change while the browser follows it: the id stays until done.
  const start = () => {
    watched.current = { exportId, query };
    setLast(undefined);
  };
  const running = progress !== undefined && !progress.done;

  return (
    <>
      {window.devicebench ? (
        <button
          type="button"
          disabled={save.busy}
          onClick={() => {
            start();
            void save.run(() => api.audit.exportCsv({ query, exportId }));
          }}
        >
          Export CSV…
        </button>
      ) : (
        <a
          className="button"
          href={`${AUDIT_EXPORT_PATH}?${new URLSearchParams({ query: JSON.stringify(query), exportId })}`}
          download
          onClick={start}
          aria-disabled={running}
        >
          Export CSV
        </a>
      )}
      <span className="hint" role="status" data-testid="export-status">
        {progress === undefined
          ? matching !== undefined && `${records(matching)} ${matching === 1 ? 'matches' : 'match'}`
          : progress.error
            ? `Export stopped after ${records(progress.rows)}: ${progress.error}`
            : progress.done
              ? `Exported ${records(progress.rows)}${save.value?.file ? ` to ${save.value.file}` : ''}`
              : `Exporting… ${count(progress.rows)} of ${records(progress.total)}`}
      </span>
      <ErrorNotice error={save.error} />
    </>
  );
}
