// What the Firmware panel says about a board's slots: which buttons can act and, when one
// cannot, why; and what a reset did, in words (docs/decisions/ble-and-hci.md, "MCUmgr").
import type { FirmwareSlot } from '../../../core/app/contracts/firmware';
import type { ChosenImage } from '../../lib/image-file';

export function slotState(slot: FirmwareSlot): string {
  const words = (['active', 'confirmed', 'pending', 'permanent'] as const).filter((f) => slot[f]);
  return words.length > 0 ? words.join(', ') : 'stored';
}

/** The image that is not running: what Test would mark. */
export function otherImage(slots: readonly FirmwareSlot[]): FirmwareSlot | undefined {
  return slots.find((s) => !s.active && s.hash !== undefined);
}

export interface Reasons {
  upload?: string;
  test?: string;
  confirm?: string;
}

/** Why each button is greyed out, or nothing where it can act. */
export function disabledReasons(
  slots: readonly FirmwareSlot[] | undefined,
  image: ChosenImage | undefined,
): Reasons {
  if (!slots) {
    const wait = 'Waiting for the board’s slots.';
    return { upload: wait, test: wait, confirm: wait };
  }
  const running = slots.find((s) => s.active);
  const other = otherImage(slots);
  return {
    upload: !image
      ? 'Choose an MCUboot image file first.'
      : running?.hash === image.hash
        ? `The board runs ${image.version} already.`
        : undefined,
    test: !other
      ? 'No other image on the board: upload one first.'
      : other.pending
        ? `${other.version} is marked for test: reset the board to boot it.`
        : undefined,
    confirm: !running
      ? 'The board lists no running image.'
      : running.confirmed
        ? `The running image (${running.version}) is confirmed already.`
        : undefined,
  };
}

export interface ResetAnswer {
  reverted: boolean;
  swapped: boolean;
  slots: FirmwareSlot[];
}

/** What the board runs after a reset and reconnect, and what to do next. */
export function resetOutcome(answer: ResetAnswer): { text: string; good: boolean } {
  const running = answer.slots.find((s) => s.active);
  const version = running?.version ?? 'no image';
  if (answer.reverted)
    return {
      text: `The board reverted: the image on test was not confirmed. It runs ${version} again.`,
      good: false,
    };
  if (answer.swapped)
    return {
      text: `The board runs the new image, ${version}, on test: confirm it, or the next reset reverts it.`,
      good: true,
    };
  return {
    text: `The board is back and runs ${version}${running?.confirmed ? ', confirmed' : ''}.`,
    good: true,
  };
}
