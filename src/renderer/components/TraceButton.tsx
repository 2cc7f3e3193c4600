// "HCI trace": downloads the btsnoop file of a time window (the BLE bench, a provisioning
// record, a dry run) for Wireshark. The window is widened at both ends so the connection set
// up before it and the disconnect after it are in the file (docs/decisions.md, "HCI traces").
import type { HciTrace } from '../../core/app/contracts/ble';
import { useApi } from '../lib/api-context';
import { downloadBase64 } from '../lib/files';
import { useAction } from '../lib/use-action';
import { ErrorNotice } from './ErrorNotice';

const TRACE_MARGIN_MS = 2_000;

interface TraceButtonProps {
  /** Read on click: a window that ends "now" ends when the user asks. */
  span: () => { from: number; to: number };
  /** What the window was, in the file name: lowercase letters, digits and dashes. */
  label: string;
  testId?: string;
  /** Which of the station's adapters (its place in the list); default the first. */
  adapter?: number;
}

/** What the file holds of the link keys (docs/decisions/ble-and-hci.md, "Keys in traces"). */
function keyWords({ keysRedacted, keysInClear }: HciTrace): string {
  const keys = (n: number) => `${n} link key${n === 1 ? '' : 's'}`;
  if (keysInClear > 0)
    return `. It holds ${keys(keysInClear)} in clear: anyone with it can decrypt the link.`;
  return keysRedacted > 0 ? ` (${keys(keysRedacted)} redacted)` : '';
}

export function TraceButton({ span, label, testId, adapter }: TraceButtonProps) {
  const api = useApi();
  const save = useAction<HciTrace>();
  return (
    <span className="trace-button" data-testid={testId}>
      <button
        type="button"
        className="link"
        aria-label={`HCI trace of ${label}`}
        disabled={save.busy}
        onClick={() =>
          void save.run(async () => {
            const { from, to } = span();
            const trace = await api.ble.exportTrace({
              from: Math.max(0, Math.floor(from - TRACE_MARGIN_MS)),
              to: Math.ceil(to + TRACE_MARGIN_MS),
              label,
              adapter,
            });
            if (trace.packets > 0) downloadBase64(trace.fileName, trace.data);
            return trace;
          })
        }
      >
        {save.busy ? 'Saving trace…' : 'HCI trace'}
      </button>
      {save.value && !save.error && (
        <span className="notice" role="status">
          {save.value.packets === 0
            ? 'No HCI traffic in that time.'
            : `${save.value.packets} HCI packet${save.value.packets === 1 ? '' : 's'} saved to ${save.value.fileName}${keyWords(save.value)}`}
        </span>
      )}
      <ErrorNotice error={save.error} />
    </span>
  );
}
