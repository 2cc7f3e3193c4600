// Chooses an MCUboot image file: its bytes go to the app's image reader before anything else,
// and a file that is not one is refused with the reader's words for what is wrong.
import { useRef } from 'react';
import { bytesToBase64 } from '../../core/bytes';
import { useApi } from '../lib/api-context';
import { shortHash, type ChosenImage } from '../lib/image-file';
import { useAction } from '../lib/use-action';
import { ErrorNotice } from './ErrorNotice';

interface ImageFileChooserProps {
  /** Names the hidden file input, e.g. "Image file". */
  inputLabel: string;
  chosen: ChosenImage | undefined;
  onChosen: (image: ChosenImage | undefined) => void;
  disabled?: boolean;
  /** Offers to go back to no image (a batch's image is optional). */
  clearable?: boolean;
  /** The button's words; default "Choose image…". */
  buttonLabel?: string;
}

export function ImageFileChooser({
  inputLabel,
  chosen,
  onChosen,
  disabled,
  clearable,
  buttonLabel = 'Choose image…',
}: ImageFileChooserProps) {
  const api = useApi();
  const read = useAction<unknown>();
  const input = useRef<HTMLInputElement>(null);

  function choose(file: File) {
    onChosen(undefined);
    void read.run(async () => {
      const base64 = bytesToBase64(new Uint8Array(await file.arrayBuffer()));
      const info = await api.firmware.inspectImage({ image: base64 });
      onChosen({ fileName: file.name, base64, ...info });
    });
  }

  return (
    <>
      <button type="button" disabled={disabled || read.busy} onClick={() => input.current?.click()}>
        {read.busy ? 'Reading…' : buttonLabel}
      </button>
      <input
        ref={input}
        type="file"
        accept=".bin,.img,application/octet-stream"
        className="offscreen"
        tabIndex={-1}
        aria-label={inputLabel}
        onChange={(event) => {
          const file = event.target.files?.[0];
          // Cleared so choosing the same file again (after fixing it) reads it again.
          event.target.value = '';
          if (file) choose(file);
        }}
      />
      {chosen && (
        <span data-testid="chosen-image" title={chosen.hash}>
          {chosen.fileName} · {chosen.version} · {chosen.bytes} bytes · {shortHash(chosen.hash)}
        </span>
      )}
      {chosen && clearable && (
        <button type="button" disabled={disabled} onClick={() => onChosen(undefined)}>
          No image
        </button>
      )}
      <ErrorNotice error={read.error} />
    </>
  );
}
