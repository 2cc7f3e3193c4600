// A byte field as engineers type one: an explicit format (hex, UTF-8, base64), the text, and a
// live preview of the bytes in hex with their count, or a plain-language reason they are not
// bytes in that format (src/core/bytes.ts reads them).
import { useId, type InputHTMLAttributes } from 'react';
import {
  BYTE_FORMAT_LABELS,
  BYTE_FORMATS,
  bytesAsText,
  bytesToBase64,
  bytesToHex,
  formatBytes,
  parseBytes,
  type ByteFormat,
  type ParsedBytes,
} from '../../core/bytes';
import { labelSentence } from '../../core/platform/field-names';
import { useShownAfterLeaving } from '../lib/use-fields';
import { FieldMessages } from './ErrorNotice';

export interface BytesText {
  format: ByteFormat;
  text: string;
}

interface BytesInputProps extends Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'onChange' | 'value'
> {
  label: string;
  value: BytesText;
  onChange: (value: BytesText) => void;
  /** Errors from elsewhere (validation of the stored value, the operation that used it). */
  messages?: readonly string[];
  /** `messages` are the form's own checks, held back like the refusal below (use-fields.ts). */
  showAfterLeaving?: boolean;
  warnings?: readonly string[];
  /** How a refusal of the typed text is worded; the parser's reason by default. */
  describeRefusal?: (reason: string) => string;
}

const PLACEHOLDERS: Record<ByteFormat, string> = {
  hex: '0x01 or 0a 1b 2c',
  utf8: 'text',
  base64: 'AQID',
};

/**
 * Switching the format rewrites the same bytes in the new one, as nRF Connect does; text that
 * is not bytes yet, or bytes that are not UTF-8, stay as typed.
 */
function switchFormat(value: BytesText, format: ByteFormat): BytesText {
  const parsed = parseBytes(value.text, value.format);
  const text = parsed.ok ? formatBytes(parsed.bytes, format) : undefined;
  return { format, text: text ?? value.text };
}

export function BytesInput({
  label,
  value,
  onChange,
  messages = [],
  showAfterLeaving = false,
  warnings = [],
  describeRefusal = (reason) => reason,
  className,
  onBlur,
  ...rest
}: BytesInputProps) {
  const id = useId();
  const gate = useShownAfterLeaving(onBlur);
  const parsed = parseBytes(value.text, value.format);
  // The refusal of the typed text is a check of the form's own: it waits until the field is left.
  const errors = !parsed.ok
    ? gate.shown
      ? [describeRefusal(parsed.message)]
      : []
    : showAfterLeaving && !gate.shown
      ? []
      : messages;
  const invalid = errors.length > 0;
  return (
    <div className={`field bytes-input ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <div className="field-control">
        <select
          aria-label={`Format of ${label}`}
          value={value.format}
          onChange={(event) => onChange(switchFormat(value, event.target.value as ByteFormat))}
        >
          {BYTE_FORMATS.map((f) => (
            <option key={f} value={f}>
              {BYTE_FORMAT_LABELS[f]}
            </option>
          ))}
        </select>
        <input
          id={id}
          value={value.text}
          onChange={(event) => onChange({ ...value, text: event.target.value })}
          onBlur={gate.onBlur}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-preview ${invalid ? `${id}-error` : ''}`.trim()}
          className={value.format === 'utf8' ? undefined : 'mono'}
          placeholder={PLACEHOLDERS[value.format]}
          spellCheck={false}
          autoComplete="off"
          {...rest}
        />
      </div>
      <BytesPreview id={`${id}-preview`} parsed={parsed} format={value.format} />
      <FieldMessages id={`${id}-error`} messages={errors.map((m) => labelSentence(label, m))} />
      <FieldMessages
        id={`${id}-warning`}
        messages={warnings.map((m) => labelSentence(label, m))}
        tone="warning"
      />
    </div>
  );
}

function BytesPreview({
  id,
  parsed,
  format,
}: {
  id: string;
  parsed: ParsedBytes;
  format: ByteFormat;
}) {
  if (!parsed.ok) return null;
  const { bytes } = parsed;
  const text = format === 'utf8' ? undefined : bytesAsText(bytes);
  return (
    <div id={id} className="bytes-preview" data-testid="bytes-preview">
      {bytes.length === 0 ? (
        <span className="muted">no bytes</span>
      ) : (
        <>
          <code className="mono" data-testid="bytes-hex">
            {bytesToHex(bytes, ' ')}
          </code>
          {format !== 'base64' && (
            <span className="muted">
              base64 <code className="mono">{bytesToBase64(bytes)}</code>
            </span>
          )}
          {text !== undefined && <span className="muted">“{text}”</span>}
        </>
      )}
      <span className="muted" data-testid="bytes-count">
        {bytes.length === 1 ? '1 byte' : `${bytes.length} bytes`}
      </span>
    </div>
  );
}
