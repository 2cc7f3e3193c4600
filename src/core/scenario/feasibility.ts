// Whether a dry run can ever end as asked, told before it starts: a count of connections that the
// set can never reach would otherwise run until someone stops it (docs/decisions.md, "Dry runs
// that end"). Pure and browser-safe: the run panel, the service and the CLI ask the same check.
import { sameUuid } from '../ble/port';
import type { BoardGatt } from './board-lint';

/** The platform's saved set may carry trigger types this app does not know: they never fire. */
type Trigger = { type: string; serviceUuid?: string; characteristicUuid?: string };

export interface RunPlan {
  /** A set as it runs, or an editor draft: only its triggers and autoClose matter. */
  set: { autoClose: boolean; scenarios: readonly { trigger: Trigger }[] };
  /** Stop once this many connections have ended. */
  cycles?: number;
  /** Stop this long after the start. */
  durationMs?: number;
  /** Dry runs holding a link at once, this one included. */
  boardsAtOnce?: number;
  /** Simultaneous LE links the adapter holds (adapter-profile.ts `maxConnections`), if known. */
  maxLinks?: number;
  /** The board's characteristics, when its GATT table was read: which of them can notify. */
  board?: Pick<BoardGatt, 'services'>;
}

export interface Infeasibility {
  /** The run option to change. */
  field: 'cycles' | 'deviceId';
  rule:
    'auto-close-off' | 'nothing-ends-the-link' | 'trigger-never-fires' | 'more-boards-than-links';
  message: string;
}

/** Every reason the run can never end as planned; empty when it can. */
export function checkFeasibility(plan: RunPlan): Infeasibility[] {
  const found: Infeasibility[] = [];
  const { set, cycles } = plan;
  if (plan.maxLinks !== undefined && (plan.boardsAtOnce ?? 1) > plan.maxLinks)
    found.push({
      field: 'deviceId',
      rule: 'more-boards-than-links',
      message: `${plan.boardsAtOnce} dry runs at once need ${plan.boardsAtOnce} links, and the adapter holds ${plan.maxLinks}: stop a run first`,
    });
  // A duration (or no limit) always ends: only a count of connections can be out of reach.
  if (cycles === undefined || plan.durationMs !== undefined) return found;
  const want = `${cycles} connection${cycles === 1 ? '' : 's'}`;
  const instead = 'run for a duration instead';

  // docs/platform-api.md#things-scenario-sets: without autoClose the client keeps the link until the board or the radio drops it.
  if (!set.autoClose) {
    found.push({
      field: 'cycles',
      rule: 'auto-close-off',
      message: `can never reach ${want}: with autoClose false the client never closes the link, so the first connection ends only if the board drops it; ${instead}`,
    });
    return found;
  }
  const immediate = set.scenarios.some((s) => s.trigger.type === 'IMMEDIATE');
  const notified = set.scenarios.filter((s) => s.trigger.type === 'BLE_NOTIFICATION');
  if (immediate) return found;
  if (notified.length === 0) {
    found.push({
      field: 'cycles',
      rule: 'nothing-ends-the-link',
      message: `can never reach ${want}: with autoClose true a connection ends when a scenario finishes, and the set has none to run; ${instead}`,
    });
    return found;
  }
  if (plan.board && !notified.some((s) => canNotify(plan.board!, s.trigger))) {
    const first = notified[0]!.trigger;
    found.push({
      field: 'cycles',
      rule: 'trigger-never-fires',
      message: `can never reach ${want}: the set has no IMMEDIATE scenario, and this board cannot notify the characteristic${notified.length === 1 ? '' : 's'} its BLE_NOTIFICATION trigger${notified.length === 1 ? ' waits' : 's wait'} for (${first.characteristicUuid ?? 'none given'}), so no scenario ever runs to end a connection; ${instead}`,
    });
  }
  return found;
}

/** The check's findings as one sentence for a refusal. */
export function describeInfeasibility(found: readonly Infeasibility[]): string {
  return found.map((f) => f.message).join('; also ');
}

function canNotify(board: NonNullable<RunPlan['board']>, trigger: Trigger): boolean {
  const service = board.services.find((s) => sameId(s.uuid, trigger.serviceUuid));
  const characteristic = service?.characteristics.find((c) =>
    sameId(c.uuid, trigger.characteristicUuid),
  );
  return Boolean(characteristic?.properties.some((p) => p === 'notify' || p === 'indicate'));
}

/** A UUID the set spells wrongly matches nothing; the set's rules report it. */
function sameId(a: string, b: string | undefined): boolean {
  if (b === undefined) return false;
  try {
    return sameUuid(a, b);
  } catch {
    return false;
  }
}
