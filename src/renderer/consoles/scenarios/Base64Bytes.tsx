// Bytes the scenario results carry as base64, shown as hex above the base64 itself (and the
// text, when they are text): people compare hex with the board's spec and base64 with what the
// platform stores.
import { bytesAsText, bytesToHex, parseBase64 } from '../../../core/bytes';

export function Base64Bytes({ data }: { data: string }) {
  if (data === '') return <em className="muted">empty</em>;
  const parsed = parseBase64(data);
  const text = parsed.ok ? bytesAsText(parsed.bytes) : undefined;
  return (
    <span className="tl-bytes">
      {parsed.ok ? (
        <code className="mono">{bytesToHex(parsed.bytes, ' ')}</code>
      ) : (
        <span className="bad">not base64</span>
      )}
      <span className="muted">
        base64 <code className="mono">{data}</code>
      </span>
      {text !== undefined && <span className="muted">“{text}”</span>}
    </span>
  );
}
