// Rules a scenario set must follow that the PUT does not check: the platform's own notes on
// docs/platform-api.md#things-scenario-sets fields, and what the client's behaviour implies
// (docs/decisions.md, "Scenario sets"). Run on a set that already passed `scenarioSetInputSchema`.
// Browser-safe.
import { parseBase64 } from '../bytes';
import type { ScenarioSetInput } from '../platform/things/schema';
import type { Finding } from './schema';

export function setRules(set: ScenarioSetInput): Finding[] {
  const findings: Finding[] = [];
  const immediate = set.scenarios.filter((s) => s.trigger.type === 'IMMEDIATE').length;

  if (!set.autoClose && set.suppressionInterval !== 0)
    findings.push({
      field: 'suppressionInterval',
      severity: 'error',
      rule: 'suppression-without-auto-close',
      message:
        'must be 0 when autoClose is false: the client never disconnects, so it never waits to reconnect',
    });

  if (set.autoClose && set.scenarios.length > 0 && immediate === 0)
    findings.push({
      field: 'scenarios',
      severity: 'error',
      rule: 'auto-close-needs-immediate',
      message:
        'with autoClose true, a set of only BLE_NOTIFICATION scenarios never starts: add an IMMEDIATE scenario',
    });

  if (set.autoClose && immediate > 1)
    findings.push({
      field: 'scenarios',
      severity: 'warning',
      rule: 'auto-close-one-immediate',
      message: `with autoClose true only the first of the ${immediate} IMMEDIATE scenarios runs: the client disconnects as soon as it finishes`,
    });

  set.scenarios.forEach((scenario, i) => {
    if (scenario.actions.length === 0 && scenario.trigger.type !== 'BLE_NOTIFICATION')
      findings.push({
        field: `scenarios[${i}].actions`,
        severity: 'error',
        rule: 'empty-actions',
        message:
          'may be empty only for a BLE_NOTIFICATION scenario (one that only collects notification data)',
      });
  });

  // The PUT takes any string of base64 characters, so "0x01" passes and writes d3 1d 35: data
  // that base64 would not write as meant is refused here (src/core/bytes.ts says why).
  set.scenarios.forEach((scenario, i) =>
    scenario.actions.forEach((action, j) => {
      if (action.data === undefined) return;
      const parsed = parseBase64(action.data);
      if (!parsed.ok)
        findings.push({
          field: `scenarios[${i}].actions[${j}].data`,
          severity: 'error',
          rule: 'data-not-meant-as-base64',
          message: parsed.message,
        });
    }),
  );

  if (set.scenarios.length === 0)
    findings.push({
      field: 'scenarios',
      severity: 'warning',
      rule: 'no-scenarios',
      message: 'is empty: the set does nothing on the device',
    });

  return findings;
}
