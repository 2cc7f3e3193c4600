// Lint of a scenario set against one board's GATT table, as discovered over BLE: every GATT
// action and notification trigger must name a service and characteristic the board has, with
// the property the client needs, and a write must fit the board's MTU. Warnings, not errors:
// the board on the bench may not be the one that ships. Browser-safe.
import type { ScenarioSetInput } from '../platform/things/schema';
import { base64ByteLength } from '../platform/things/actions/fields';
import { actionDescriptor } from '../platform/things/actions/registry';
import type { ActionDescriptor } from '../platform/things/actions/descriptor';
import { matchesUuid, type CharacteristicProperty } from '../ble/port';
import type { Finding } from './schema';

export interface BoardGatt {
  /** The negotiated ATT MTU: one write carries at most `mtu - 3` bytes. */
  mtu: number;
  services: {
    uuid: string;
    /** The board file's name, where the board has one (simulated boards). */
    name?: string;
    characteristics: { uuid: string; name?: string; properties: readonly string[] }[];
  }[];
}

/** What an action type's `boardAccess` asks of a characteristic, and what a trigger does. */
type Need = NonNullable<ActionDescriptor['boardAccess']> | 'notify';

const NEEDS: Record<Need, { properties: CharacteristicProperty[]; rule: string; what: string }> = {
  read: { properties: ['read'], rule: 'read-not-permitted', what: 'read' },
  write: {
    properties: ['write', 'writeWithoutResponse'],
    rule: 'write-not-permitted',
    what: 'write',
  },
  notify: {
    properties: ['notify', 'indicate'],
    rule: 'notify-not-supported',
    what: 'notify or indicate',
  },
};

export function lintAgainstBoard(set: ScenarioSetInput, board: BoardGatt): Finding[] {
  const findings: Finding[] = [];
  const check = (base: string, serviceUuid: string, characteristicUuid: string, need: Need) => {
    const service = board.services.find((s) => matchesUuid(s.uuid, serviceUuid));
    if (!service) {
      findings.push({
        field: `${base}.serviceUuid`,
        severity: 'warning',
        rule: 'no-such-service',
        message: `the board has no service ${serviceUuid}`,
      });
      return;
    }
    const characteristic = service.characteristics.find((c) =>
      matchesUuid(c.uuid, characteristicUuid),
    );
    if (!characteristic) {
      findings.push({
        field: `${base}.characteristicUuid`,
        severity: 'warning',
        rule: 'no-such-characteristic',
        message: `service ${serviceUuid} on the board has no characteristic ${characteristicUuid}`,
      });
      return;
    }
    const { properties, rule, what } = NEEDS[need];
    if (!properties.some((p) => characteristic.properties.includes(p)))
      findings.push({
        field: `${base}.characteristicUuid`,
        severity: 'warning',
        rule,
        message: `${characteristicUuid} does not allow ${what} on the board (it allows ${characteristic.properties.join(', ') || 'nothing'})`,
      });
  };

  set.scenarios.forEach((scenario, i) => {
    const { trigger } = scenario;
    if (trigger.type === 'BLE_NOTIFICATION' && trigger.serviceUuid && trigger.characteristicUuid)
      check(`scenarios[${i}].trigger`, trigger.serviceUuid, trigger.characteristicUuid, 'notify');
    scenario.actions.forEach((action, j) => {
      const base = `scenarios[${i}].actions[${j}]`;
      if (!action.serviceUuid || !action.characteristicUuid) return;
      const access = actionDescriptor(action.type)?.boardAccess;
      if (!access) return;
      check(base, action.serviceUuid, action.characteristicUuid, access);
      const bytes = base64ByteLength(action.data ?? '');
      if (access === 'write' && bytes > board.mtu - 3)
        findings.push({
          field: `${base}.data`,
          severity: 'warning',
          rule: 'data-exceeds-mtu',
          message: `is ${bytes} bytes: the board's MTU of ${board.mtu} carries at most ${board.mtu - 3} in one write`,
        });
    });
  });
  return findings;
}
