// Firmware on a connected board with MCUmgr, as an engineer flashes a Zephyr board by hand: its
// image slots (version, hash, active/confirmed/pending), an image file checked before any byte
// goes out, an upload with its progress and kB/s (resumed after a dropped link), test, reset
// and confirm with why each cannot act yet, echo, and after a reset whether the board runs the
// new image or reverted. Every call runs on the card's link (docs/decisions/ble-and-hci.md,
// "MCUmgr").
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import type { FirmwareSlot } from '../../../core/app/contracts/firmware';
import { ErrorNotice } from '../../components/ErrorNotice';
import { ImageFileChooser } from '../../components/ImageFileChooser';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { shortHash, type ChosenImage } from '../../lib/image-file';
import { useAction } from '../../lib/use-action';
import { AppError } from '../../../core/app/api';
import { runningFromDetail } from '../../../core/usecases/bench/firmware-busy';
import { disabledReasons, otherImage, resetOutcome, slotState } from './firmware-model';
import { uploadLinkWords, type UploadLink } from '../../../core/usecases/upload-link-words';
import { useSaidInView } from '../../lib/use-said-in-view';

interface Progress {
  offset: number;
  total: number;
  bytesPerSecond: number;
  resumedFrom: number;
  reconnects: number;
  /** What the link got for the upload: PHY, data length, interval, window. */
  link: UploadLink;
  /** The upload's answer came: the rate is its average, the one the outcome says. */
  final?: boolean;
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
/** Said beside an upload's rate when the link dropped during it: the time to reconnect counts. */
const RECONNECT_INCLUDED = ' (reconnect included)';

/** How often a panel refused by another window's call asks again, should its end go unheard. */
const WAIT_RETRY_MS = 2_000;

/**
 * What runs on the board when a call was refused for it (one call at a time per link): the panel
 * waits for that call, it is no error. Undefined for any other failure.
 */
function refusedFor(error: unknown): string | undefined {
  if (!(error instanceof AppError)) return undefined;
  return error.fields
    .filter((f) => f.field === 'connectionId')
    .map((f) => runningFromDetail(f.message))
    .find(Boolean);
}

/** A button that cannot act says why beside it. */
function Why({ id, reason }: { id: string; reason: string | undefined }) {
  return reason ? (
    <span className="note small" id={id} data-testid="firmware-why">
      {reason}
    </span>
  ) : null;
}

export function FirmwarePanel({ connectionId, lost }: { connectionId: string; lost: boolean }) {
  const api = useApi();
  const ids = useId();
  const call = useAction<unknown>();
  const echo = useAction<{ text: string }>();
  const [slots, setSlots] = useState<FirmwareSlot[]>();
  const [image, setImage] = useState<ChosenImage>();
  const [progress, setProgress] = useState<Progress>();
  const [outcome, setOutcome] = useState<{ text: string; good: boolean; chosen?: boolean }>();
  const said = useSaidInView<HTMLParagraphElement>(outcome);
  const [echoText, setEchoText] = useState('hello');
  // An upload that can be stopped, and whether Cancel was pressed (it stops at the next chunk).
  const [cancel, setCancel] = useState<'running' | 'asked'>();
  const { run } = call;

  // What runs on the board from any window, and whether this panel's slot list was refused for
  // it: it reads them again when that call ends (docs/decisions/ble-and-hci.md, "MCUmgr in the
  // app"), or every few seconds should the end go unheard, or on Retry.
  const [running, setRunning] = useState<string>();
  const [waiting, setWaiting] = useState(false);
  const [ended, setEnded] = useState(0);
  const loadSlots = useCallback(
    () =>
      void run(async () => {
        try {
          const answer = await api.firmware.slots({ connectionId });
          setWaiting(false);
          setRunning(undefined);
          setSlots(answer.slots);
          return answer;
        } catch (err) {
          const other = refusedFor(err);
          if (!other) throw err;
          // Known before this window heard the call start.
          setRunning((known) => known ?? other);
          setWaiting(true);
          return undefined;
        }
      }),
    [api, connectionId, run],
  );

  useEffect(() => {
    if (!lost) loadSlots();
  }, [lost, loadSlots]);

  useEffect(() => {
    if (!waiting || lost) return;
    if (ended > 0) loadSlots();
    const timer = setInterval(loadSlots, WAIT_RETRY_MS);
    return () => clearInterval(timer);
  }, [waiting, ended, lost, loadSlots]);

  useEffect(() => {
    const mine = (e: { connectionId: string }) => e.connectionId === connectionId;
    const offs = [
      // A chunk's event that comes after the answer does not replace the upload's average.
      api.on(
        'firmware:progress',
        (p) => mine(p) && setProgress((prev) => (prev?.final ? prev : p)),
      ),
      api.on('firmware:slots', (e) => {
        if (!mine(e)) return;
        setSlots(e.slots);
        setWaiting(false);
      }),
      api.on('firmware:busy', (e) => {
        if (!mine(e)) return;
        setRunning(e.running);
        if (e.running === undefined) setEnded((n) => n + 1);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [api, connectionId]);

  /**
   * This window's own call: once its answer is here it has ended, whenever its `firmware:busy`
   * end comes, so it is never shown as another window's.
   */
  const ownCall = (work: () => Promise<unknown>) => run(work).finally(() => setRunning(undefined));
  const busy = call.busy;
  const mine = busy || echo.busy;
  // Another window's call: this panel's buttons wait for it rather than be refused.
  const elsewhere =
    running && !mine
      ? `${running[0]!.toUpperCase()}${running.slice(1)} runs on this board from another window.`
      : undefined;
  const linkDown = lost && !busy ? 'The link dropped: reconnect first.' : undefined;
  const reasons = disabledReasons(slots, image);
  const why = {
    upload: linkDown ?? elsewhere ?? reasons.upload,
    test: linkDown ?? elsewhere ?? reasons.test,
    confirm: linkDown ?? elsewhere ?? reasons.confirm,
    reset: linkDown ?? elsewhere ?? (slots ? undefined : 'Waiting for the board’s slots.'),
  };

  function act(work: () => Promise<{ slots: FirmwareSlot[] }>, after?: () => void) {
    setOutcome(undefined);
    void ownCall(async () => {
      const answer = await work();
      setSlots(answer.slots);
      after?.();
      return answer;
    });
  }

  function upload() {
    if (!image) return;
    setProgress(undefined);
    setCancel('running');
    act(async () => {
      const result = await api.firmware
        .upload({ connectionId, image: image.base64 })
        .finally(() => setCancel(undefined));
      if (result.cancelled) {
        setOutcome({
          text: `Upload cancelled at ${result.offset} of ${result.total} bytes. The board keeps them: the next upload of this image resumes there.`,
          good: false,
          // Stopped because the person asked: said plainly, not as a failure.
          chosen: true,
        });
        return result;
      }
      // One rate on the screen: the progress line ends on the upload's average, the outcome's,
      // which counts the time the link took to come back after a drop (issue 45).
      setProgress(
        (p) =>
          p && {
            ...p,
            bytesPerSecond: result.kilobytesPerSecond * 1000,
            link: result.link,
            final: true,
          },
      );
      const resumed =
        result.resumedFrom === 0
          ? ''
          : result.reconnects > 0
            ? ` The link dropped ${result.reconnects}×; the upload resumed at byte ${result.resumedFrom}.`
            : ` The board held part of it: the upload resumed at byte ${result.resumedFrom}.`;
      setOutcome({
        text: `Uploaded ${image.version}: ${kB(result.sent)} at ${result.kilobytesPerSecond.toFixed(1)} kB/s${result.reconnects > 0 ? RECONNECT_INCLUDED : ''}.${resumed} Test it to boot it at the next reset.`,
        good: true,
      });
      return result;
    });
  }

  function reset() {
    setOutcome(undefined);
    void ownCall(async () => {
      const answer = await api.firmware.reset({ connectionId });
      setSlots(answer.slots);
      setOutcome(resetOutcome(answer));
      return answer;
    });
  }

  function sendEcho(event: FormEvent) {
    event.preventDefault();
    void echo
      .run(() => api.firmware.echo({ connectionId, text: echoText }))
      .finally(() => setRunning(undefined));
  }

  const other = slots && otherImage(slots);
  const uploading = call.busy && progress !== undefined && progress.offset < progress.total;

  return (
    <section className="ble-firmware" aria-label="Firmware" data-testid="firmware-panel">
      <h3>Firmware (MCUmgr)</h3>
      {slots && (
        <table className="ble-firmware-slots" aria-label="Image slots">
          <thead>
            <tr>
              <th>Slot</th>
              <th>Version</th>
              <th>Hash</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody>
            {slots.map((s) => (
              <tr key={`${s.image}-${s.slot}`} data-testid="firmware-slot" data-slot={s.slot}>
                <td>{s.slot}</td>
                <td>{s.version}</td>
                <td className="mono" title={s.hash}>
                  {shortHash(s.hash)}
                </td>
                <td>{slotState(s)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="ble-firmware-row">
        <ImageFileChooser
          inputLabel="Image file"
          chosen={image}
          onChosen={setImage}
          disabled={busy}
        />
        <button
          type="button"
          disabled={busy || why.upload !== undefined}
          aria-describedby={why.upload && `${ids}-upload`}
          onClick={upload}
        >
          {uploading ? 'Uploading…' : 'Upload'}
        </button>
        <Why id={`${ids}-upload`} reason={why.upload} />
        {cancel && (
          <button
            type="button"
            disabled={cancel === 'asked'}
            onClick={() => {
              setCancel('asked');
              // A cancel that did not arrive leaves the button to press again.
              api.firmware.cancelUpload({ connectionId }).catch(() => setCancel('running'));
            }}
          >
            {cancel === 'asked' ? 'Cancelling…' : 'Cancel upload'}
          </button>
        )}
      </div>
      {progress && (
        <div className="ble-firmware-progress" data-testid="firmware-progress">
          <progress aria-label="Upload" value={progress.offset} max={progress.total} />
          <span>
            {kB(progress.offset)} of {kB(progress.total)} · {kB(progress.bytesPerSecond)}/s
            {progress.final && progress.reconnects > 0 && RECONNECT_INCLUDED}
            {progress.resumedFrom > 0 && ` · resumed from byte ${progress.resumedFrom}`}
          </span>
          <span className="note small" data-testid="firmware-link">
            {uploadLinkWords(progress.link)}
          </span>
        </div>
      )}
      <div className="ble-firmware-row">
        <button
          type="button"
          disabled={busy || why.test !== undefined}
          aria-describedby={why.test && `${ids}-test`}
          onClick={() =>
            other?.hash &&
            act(
              () => api.firmware.test({ connectionId, hash: other.hash ?? '' }),
              () =>
                setOutcome({
                  text: `${other.version} is marked for test: reset the board to boot it once.`,
                  good: true,
                }),
            )
          }
        >
          Test{other ? ` ${other.version}` : ''}
        </button>
        <Why id={`${ids}-test`} reason={why.test} />
        <button
          type="button"
          disabled={busy || why.reset !== undefined}
          aria-describedby={why.reset && `${ids}-reset`}
          onClick={reset}
        >
          Reset
        </button>
        <Why id={`${ids}-reset`} reason={why.reset} />
        <button
          type="button"
          disabled={busy || why.confirm !== undefined}
          aria-describedby={why.confirm && `${ids}-confirm`}
          onClick={() =>
            act(
              () => api.firmware.confirm({ connectionId }),
              () => setOutcome({ text: 'Confirmed: the running image stays.', good: true }),
            )
          }
        >
          Confirm
        </button>
        <Why id={`${ids}-confirm`} reason={why.confirm} />
      </div>
      {outcome && (
        <p
          className={outcome.chosen ? 'note' : outcome.good ? 'good' : 'bad'}
          role="status"
          data-testid="firmware-outcome"
          ref={said}
        >
          {outcome.text}
        </p>
      )}
      {waiting && !slots && (
        <p className="note" role="status" data-testid="firmware-waiting">
          {elsewhere ?? 'Another window has a call running on this board.'} The slots show when it
          ends.{' '}
          <button type="button" className="link" disabled={busy} onClick={loadSlots}>
            Retry
          </button>
        </p>
      )}
      <ErrorNotice error={call.error} />
      {call.error !== undefined && !slots && !busy && !lost && (
        <button type="button" onClick={loadSlots}>
          Read the slots again
        </button>
      )}
      <form className="inline-form" aria-label="Echo" onSubmit={sendEcho}>
        <TextField label="Echo text" value={echoText} onChange={setEchoText} />
        <button type="submit" disabled={echo.busy || busy || lost || elsewhere !== undefined}>
          Echo
        </button>
        {echo.value && (
          <span data-testid="firmware-echo">The board answered “{echo.value.text}”.</span>
        )}
      </form>
      <ErrorNotice error={echo.error} />
    </section>
  );
}
