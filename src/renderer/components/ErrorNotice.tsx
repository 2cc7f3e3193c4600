// Shows an error where the user acted: the message, the HTTP status and request id for
// platform errors, and any field problems not already shown next to their inputs.
import { fieldInWords, fieldSentence } from '../../core/platform/field-names';
import { toAppError } from '../lib/errors';

interface ErrorNoticeProps {
  error: unknown;
  /** Fields the surrounding form shows at their inputs; the rest are listed here. */
  shownFields?: readonly string[];
  testId?: string;
}

export function ErrorNotice({ error, shownFields = [], testId }: ErrorNoticeProps) {
  if (error === undefined || error === null) return null;
  const e = toAppError(error);
  const fields = e.fields.filter((f) => !shownFields.includes(f.field));
  // An input error's message only restates its fields, which are shown next to their inputs
  // or listed below.
  const message =
    e.code === 'invalid_input' && e.fields.length > 0
      ? fields.length < e.fields.length
        ? 'Please correct the marked fields.'
        : 'The input was not accepted:'
      : e.message;
  return (
    <div className="error-notice" role="alert" data-testid={testId}>
      <p className="error-message">
        {e.status !== undefined && <span className="badge status">HTTP {e.status}</span>}
        {message}
      </p>
      {fields.length > 0 && (
        <ul className="error-fields">
          {fields.map((f, i) => (
            <li key={i} title={f.field}>
              {fieldSentence(fieldInWords(f.field), f.message)}
            </li>
          ))}
        </ul>
      )}
      {e.requestId && (
        <p className="request-id">
          request id <code className="mono">{e.requestId}</code>
        </p>
      )}
    </div>
  );
}

/** Messages for one field, shown under its input; `id` lets the input point at them. */
export function FieldMessages({
  id,
  messages,
  tone = 'error',
}: {
  id: string;
  messages: readonly string[];
  /** A warning does not make the field invalid: it is for the user to weigh. */
  tone?: 'error' | 'warning';
}) {
  if (messages.length === 0) return null;
  return (
    <div id={id} className={tone === 'error' ? 'field-error' : 'field-warning'}>
      {messages.map((m, i) => (
        <div key={i}>{m}</div>
      ))}
    </div>
  );
}
