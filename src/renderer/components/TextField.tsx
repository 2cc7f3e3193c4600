// A labelled input with its error messages underneath, wired for screen readers, and
// optionally values to suggest (ids the app already knows). Messages read as sentences that
// name the field by its label ("Minimum RSSI must be between −127 and 0 dBm").
import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { labelSentence } from '../../core/platform/field-names';
import { useShownAfterLeaving } from '../lib/use-fields';
import { FieldMessages } from './ErrorNotice';

export interface Suggestion {
  value: string;
  label: string;
}

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange'> {
  label: string;
  value: string;
  onChange: (value: string) => void;
  messages?: readonly string[];
  /**
   * The messages are the form's own checks, shown once the field was left or its form was
   * saved (use-fields.ts); otherwise they answer a save and show at once.
   */
  showAfterLeaving?: boolean;
  /** Shown under the errors; they leave the field valid. */
  warnings?: readonly string[];
  hint?: string;
  mono?: boolean;
  suggestions?: readonly Suggestion[];
  /** Shown after the input, e.g. a button acting on this field. */
  children?: ReactNode;
}

export function TextField({
  label,
  value,
  onChange,
  messages = [],
  showAfterLeaving = false,
  warnings = [],
  hint,
  onBlur,
  mono = false,
  suggestions,
  className,
  children,
  ...rest
}: TextFieldProps) {
  const id = useId();
  const gate = useShownAfterLeaving(onBlur);
  const shown = showAfterLeaving && !gate.shown ? [] : messages;
  const invalid = shown.length > 0;
  const described = [
    hint && `${id}-hint`,
    invalid && `${id}-error`,
    warnings.length > 0 && `${id}-warning`,
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <div className="field-control">
        <input
          id={id}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onBlur={gate.onBlur}
          aria-invalid={invalid || undefined}
          aria-describedby={described || undefined}
          className={mono ? 'mono' : undefined}
          spellCheck={false}
          autoComplete="off"
          list={suggestions && `${id}-suggestions`}
          {...rest}
        />
        {suggestions && (
          <datalist id={`${id}-suggestions`}>
            {suggestions.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </datalist>
        )}
        {children}
      </div>
      {hint && (
        <div id={`${id}-hint`} className="hint">
          {hint}
        </div>
      )}
      <FieldMessages id={`${id}-error`} messages={shown.map((m) => labelSentence(label, m))} />
      <FieldMessages
        id={`${id}-warning`}
        messages={warnings.map((m) => labelSentence(label, m))}
        tone="warning"
      />
    </div>
  );
}
