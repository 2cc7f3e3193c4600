// The scenario set as JSON text, with every problem listed by its field path.
import { useId } from 'react';
import type { FieldError } from '../../../core/platform/field-errors';
import { fieldInWords, fieldSentence } from '../../../core/platform/field-names';

interface ScenarioJsonProps {
  text: string;
  onChange: (text: string) => void;
  problems: readonly FieldError[];
  warnings: readonly FieldError[];
}

export function ScenarioJson({ text, onChange, problems, warnings }: ScenarioJsonProps) {
  const id = useId();
  return (
    <div className="scenario-json">
      <label htmlFor={id} className="offscreen">
        Scenario set JSON
      </label>
      {problems.length > 0 && (
        <ul id={`${id}-problems`} className="problems" data-testid="json-problems">
          {problems.map((p, i) => (
            <li key={i} title={p.field}>
              {fieldSentence(fieldInWords(p.field), p.message)}
            </li>
          ))}
        </ul>
      )}
      {warnings.length > 0 && (
        <ul className="problems warnings" data-testid="json-warnings">
          {warnings.map((p, i) => (
            <li key={i} title={p.field}>
              {fieldSentence(fieldInWords(p.field), p.message)}
            </li>
          ))}
        </ul>
      )}
      <textarea
        id={id}
        className="mono"
        data-testid="scenario-json"
        value={text}
        onChange={(event) => onChange(event.target.value)}
        spellCheck={false}
        rows={Math.min(Math.max(text.split('\n').length + 1, 12), 40)}
        aria-invalid={problems.length > 0 || undefined}
        aria-describedby={problems.length > 0 ? `${id}-problems` : undefined}
      />
    </div>
  );
}
