// A labelled input with its error messages underneath, wired for screen readers, and
// optionally values to suggest (ids the app already knows).
import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
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
  warnings = [],
  hint,
  mono = false,
  suggestions,
  className,
  children,
  ...rest
}: TextFieldProps) {
  const id = useId();
  const invalid = messages.length > 0;
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
      <FieldMessages id={`${id}-error`} messages={messages} />
      <FieldMessages id={`${id}-warning`} messages={warnings} tone="warning" />
    </div>
  );
}
