// A labelled <select> in the same layout as TextField: the one control for "pick one of these".
import { useId } from 'react';

interface Option<V extends string = string> {
  value: V;
  label: string;
}

export function SelectField<V extends string>({
  label,
  value,
  onChange,
  options,
  placeholder,
  className,
}: {
  label: string;
  value: V | '';
  onChange: (value: V) => void;
  /** Plain strings are shown as they are. */
  options: readonly V[] | readonly Option<V>[];
  /** Shown as the empty first choice. */
  placeholder?: string;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as V)}>
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((o) => {
          const option = typeof o === 'string' ? { value: o, label: o } : o;
          return (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          );
        })}
      </select>
    </div>
  );
}
