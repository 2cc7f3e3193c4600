// Bytes the scenario results carry as base64, shown as hex above the base64 itself: people
// compare hex with the board's spec and base64 with what the platform stores.
import { base64ToHex } from './timeline-model';

export function Base64Bytes({ data }: { data: string }) {
  if (data === '') return <em className="muted">empty</em>;
  const hex = base64ToHex(data);
  return (
    <span className="tl-bytes">
      {hex === undefined ? (
        <span className="bad">not base64</span>
      ) : (
        <code className="mono">{hex}</code>
      )}
      <span className="muted">
        base64 <code className="mono">{data}</code>
      </span>
    </span>
  );
}
