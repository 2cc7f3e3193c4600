// Bytes as people read them: spaced hex, with the UTF-8 text beside them when they are text
// and base64 when they are not.
import { hexAsBase64, hexAsText, spacedHex } from './bytes';

export function BytesView({ hex }: { hex: string }) {
  if (hex === '') return <em className="muted">empty</em>;
  const text = hexAsText(hex);
  return (
    <span className="ble-bytes">
      <code className="mono">{spacedHex(hex)}</code>
      {text !== undefined ? (
        <span className="muted"> “{text}”</span>
      ) : (
        <span className="muted">
          {' '}
          base64 <span className="ble-base64">{hexAsBase64(hex)}</span>
        </span>
      )}
    </span>
  );
}
