// How a characteristic's value reads: a type (integers, float, UTF-8, hex), and for numbers a
// power-of-ten scale and a unit, as the SIG's presentation format has them. Saved per product
// and characteristic as soon as it changes.
import {
  isNumeric,
  valueFormatSchema,
  VALUE_TYPE_LABELS,
  VALUE_TYPES,
  type ValueFormat,
  type ValueType,
} from '../../../core/ble/values/value-format';

/** The scales offered; any exponent from -9 to 9 is accepted through the contract. */
const EXPONENTS = [3, 2, 1, 0, -1, -2, -3, -6] as const;

function scaleLabel(exponent: number): string {
  if (exponent === 0) return '× 1';
  return exponent > 0 ? `× ${10 ** exponent}` : `÷ ${10 ** -exponent}`;
}

export function ValueFormatPicker({
  label,
  format,
  onChange,
}: {
  /** What the value is, for the controls' labels. */
  label: string;
  format: ValueFormat;
  onChange: (format: ValueFormat) => void;
}) {
  const change = (next: Partial<ValueFormat>) =>
    onChange(valueFormatSchema.parse({ ...format, ...next }));

  return (
    <span className="ble-format">
      <select
        aria-label={`Format of ${label}`}
        value={format.type}
        onChange={(event) => change({ type: event.target.value as ValueType })}
      >
        {VALUE_TYPES.map((t) => (
          <option key={t} value={t}>
            {VALUE_TYPE_LABELS[t]}
          </option>
        ))}
      </select>
      {isNumeric(format.type) && (
        <>
          <select
            aria-label={`Scale of ${label}`}
            value={format.exponent}
            onChange={(event) => change({ exponent: Number(event.target.value) })}
          >
            {(EXPONENTS as readonly number[]).includes(format.exponent) ? null : (
              <option value={format.exponent}>{scaleLabel(format.exponent)}</option>
            )}
            {EXPONENTS.map((e) => (
              <option key={e} value={e}>
                {scaleLabel(e)}
              </option>
            ))}
          </select>
          <input
            aria-label={`Unit of ${label}`}
            className="ble-unit"
            key={format.unit}
            defaultValue={format.unit}
            maxLength={12}
            placeholder="unit"
            onBlur={(event) =>
              event.target.value.trim() !== format.unit && change({ unit: event.target.value })
            }
            onKeyDown={(event) => {
              if (event.key === 'Enter') event.currentTarget.blur();
            }}
          />
        </>
      )}
    </span>
  );
}
