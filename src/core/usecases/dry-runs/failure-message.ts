// What a failed scenario run says in a report (`scenario run`'s lines and its JUnit case): the
// result code and reason, then what the failed action's type says about it (its descriptor's
// facts: the characteristic, what the board answered) and the bytes it carried.
import type { ScenarioResult } from '../../platform/things/scenario-result';
import { actionDescriptor } from '../../platform/things/actions/registry';
import type { TimelineEvent } from '../../scenario/schema';

/** `GATT_ERROR: actions[1] GATT_WRITE …: the board answered ATT error 0x0d (…); characteristic …; bytes 0102`. */
export function failureMessage(
  result: ScenarioResult,
  action?: Extract<TimelineEvent, { kind: 'action' }>,
): string {
  const parts = [`${result.resultCode}: ${result.errorReason ?? 'failed'}`];
  if (action) parts.push(...(actionDescriptor(action.type)?.failureFacts?.(action) ?? []));
  if (action?.data) parts.push(`bytes ${Buffer.from(action.data, 'base64').toString('hex')}`);
  return parts.join('; ');
}
