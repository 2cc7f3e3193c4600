// A button that opens a file picker and hands over the chosen file's name and text. The input
// itself is hidden but labelled, so tests and assistive tools can still reach it.
import { useRef, useState } from 'react';

interface FileButtonProps {
  label: string;
  /** Names the hidden input, e.g. "Board file". */
  inputLabel: string;
  accept: string;
  disabled?: boolean;
  onFile: (file: { fileName: string; text: string }) => void;
  onError: (error: unknown) => void;
  testId?: string;
}

export function FileButton({
  label,
  inputLabel,
  accept,
  disabled,
  onFile,
  onError,
  testId,
}: FileButtonProps) {
  const input = useRef<HTMLInputElement>(null);
  const [reading, setReading] = useState(false);
  return (
    <>
      <button type="button" disabled={disabled || reading} onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={input}
        type="file"
        accept={accept}
        className="offscreen"
        tabIndex={-1}
        aria-label={inputLabel}
        data-testid={testId}
        onChange={(event) => {
          const file = event.target.files?.[0];
          // Cleared so choosing the same file again (after fixing it) fires again.
          event.target.value = '';
          if (!file) return;
          setReading(true);
          file
            .text()
            .then(
              (text) => onFile({ fileName: file.name, text }),
              (error: unknown) => onError(error),
            )
            .finally(() => setReading(false));
        }}
      />
    </>
  );
}
