// What one scenario action type is, in one place: the fields it takes, how the client runs it,
// what it needs of the board, and how the timeline and reports show it. The schema, the engine,
// board lint, the editor, the timeline and the JUnit report all read these (registry.ts), so a
// new action type is one descriptor. Browser-safe: running one goes through `ActionContext`, which
// the engine implements over its BLE connection.
import type { ActionResult } from '../scenario-result';
import type { ActionField, ActionFields } from './fields';

/**
 * Colours the timeline draws action types in: names the stylesheet maps to its palette (light and
 * dark), so the core names a colour without knowing the theme.
 */
export type ActionColour = 'slate' | 'accent' | 'violet';

/** What running an action can do to the board, on the run's clock. GATT values are base64. */
export interface ActionContext {
  /** Waits; a stop ends the wait at once. */
  sleep(ms: number): Promise<void>;
  read(serviceUuid: string, characteristicUuid: string): Promise<string>;
  /** With response when the characteristic allows it. */
  write(serviceUuid: string, characteristicUuid: string, data: string): Promise<void>;
}

export interface ActionOutcome {
  /** The entry of the scenario result's `actionResults`. */
  result: ActionResult;
  /** base64 for the timeline: what was written, or what was read. */
  data?: string;
}

export interface ActionDescriptor {
  /** The name on the wire (`type`). */
  type: string;
  /** What the editor and the timeline call it. */
  label: string;
  colour: ActionColour;
  /** The fields it requires, in the order the form shows them; it refuses every other. */
  fields: readonly ActionField[];
  run(action: ActionFields, context: ActionContext): Promise<ActionOutcome>;
  /**
   * It writes its `data` to the board: a refused one still shows the bytes it tried, and its
   * result says whether the board's answer was seen.
   */
  writes?: boolean;
  /** What board lint checks its characteristic allows. */
  boardAccess?: 'read' | 'write';
  /** What a failure report names besides the error and the bytes ("characteristic … of …"). */
  failureFacts?(action: ActionFields): string[];
}

/** A GATT action's characteristic, as a failure report names it. */
export function gattTarget(action: ActionFields): string[] {
  return action.characteristicUuid
    ? [`characteristic ${action.characteristicUuid} of service ${action.serviceUuid}`]
    : [];
}
