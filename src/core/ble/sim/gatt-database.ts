// A board's GATT services as the attribute table its ATT server answers from (Bluetooth Core
// Specification v5.3, Vol 3, Part G, 3): handles from 1, consecutive, in board-file order; per
// service its declaration, per characteristic its declaration, its value, a CCCD when it can
// notify or indicate, and a User Description when the board file names it.
import { expandUuid } from '../port';
import { CHARACTERISTIC_PROPERTY_BITS, GATT_TYPE } from '../att/codes';
import type { CharacteristicProperty } from '../port';
import type { LinkPermission } from '../link-parameters';

/** Who may read or write an attribute: nobody, or a link at least this secure. */
export type AttPermission = 'none' | LinkPermission;

interface GattCharacteristicSpec {
  /** noble's form: lowercase hex, no dashes (4, 8 or 32 digits). */
  uuid: string;
  /** Exposed as a Characteristic User Description (0x2901) when present. */
  name?: string;
  properties: readonly CharacteristicProperty[];
  /** What the link must be to read or write the value; default open. */
  permissions?: { read?: LinkPermission; write?: LinkPermission; subscribe?: LinkPermission };
  /** Longest value a write may store. */
  maxLength: number;
}

export interface GattServiceSpec {
  uuid: string;
  characteristics: readonly GattCharacteristicSpec[];
}

type AttributeRole =
  | { kind: 'service'; endHandle: number }
  | { kind: 'declaration' }
  | { kind: 'value'; spec: GattCharacteristicSpec }
  | { kind: 'cccd'; spec: GattCharacteristicSpec; valueHandle: number }
  | { kind: 'userDescription' };

export type Attribute = AttributeRole & {
  handle: number;
  /** The attribute type in noble's form ('2800', '2803', or the characteristic's UUID). */
  type: string;
  /** The board's UUIDs of the service and characteristic the attribute belongs to. */
  service: string;
  characteristic?: string;
  /** The fixed value of declarations and descriptors; a value attribute asks the board. */
  value?: Uint8Array;
  read: AttPermission;
  write: AttPermission;
};

const hex16 = (n: number) => n.toString(16).padStart(4, '0');
const BASE_SUFFIX = '00001000800000805f9b34fb';

/**
 * A UUID as ATT carries it, little-endian: 16-bit as 2 bytes, anything else as the 128-bit form
 * in 16 bytes (ATT has no 32-bit form, Vol 3, Part F, 3.2.1).
 */
export function uuidToBytes(uuid: string): Uint8Array {
  const full = uuid.length === 4 ? uuid : expandUuid(uuid);
  return Uint8Array.from(Buffer.from(full, 'hex').reverse());
}

/**
 * The inverse of `uuidToBytes` for 2- or 16-byte fields, in noble's form: a 128-bit UUID on the
 * Bluetooth base comes back as its 16-bit alias, so that types compare whatever form the
 * client used. Undefined for other lengths.
 */
export function uuidFromBytes(bytes: Uint8Array): string | undefined {
  if (bytes.length !== 2 && bytes.length !== 16) return undefined;
  const hex = Buffer.from(bytes).reverse().toString('hex');
  if (hex.length === 32 && hex.startsWith('0000') && hex.endsWith(BASE_SUFFIX))
    return hex.slice(4, 8);
  return hex;
}

/** Whether two attribute types (noble's form, any length) name the same UUID. */
export function sameType(a: string, b: string): boolean {
  return expandUuid(a) === expandUuid(b);
}

function propertyByte(properties: readonly CharacteristicProperty[]): number {
  return properties.reduce((bits, p) => bits | CHARACTERISTIC_PROPERTY_BITS[p], 0);
}

/** The attribute table of `services`, indexed by handle. */
export class GattDatabase {
  readonly attributes: readonly Attribute[];

  constructor(services: readonly GattServiceSpec[]) {
    const attributes: Attribute[] = [];
    let handle = 1;
    for (const service of services) {
      const declaration: Attribute = {
        kind: 'service',
        endHandle: 0,
        handle: handle++,
        type: hex16(GATT_TYPE.primaryService),
        service: service.uuid,
        value: uuidToBytes(service.uuid),
        read: 'open',
        write: 'none',
      };
      attributes.push(declaration);
      for (const spec of service.characteristics) {
        const valueHandle = handle + 1;
        const uuid = uuidToBytes(spec.uuid);
        const on = { service: service.uuid, characteristic: spec.uuid };
        const declarationValue = new Uint8Array(3 + uuid.length);
        declarationValue[0] = propertyByte(spec.properties);
        declarationValue[1] = valueHandle & 0xff;
        declarationValue[2] = valueHandle >> 8;
        declarationValue.set(uuid, 3);
        attributes.push({
          kind: 'declaration',
          handle: handle++,
          type: hex16(GATT_TYPE.characteristic),
          ...on,
          value: declarationValue,
          read: 'open',
          write: 'none',
        });
        const can = (p: CharacteristicProperty) => spec.properties.includes(p);
        attributes.push({
          kind: 'value',
          spec,
          handle: handle++,
          type: spec.uuid.length === 8 ? expandUuid(spec.uuid) : spec.uuid,
          ...on,
          read: can('read') ? (spec.permissions?.read ?? 'open') : 'none',
          write:
            can('write') || can('writeWithoutResponse')
              ? (spec.permissions?.write ?? 'open')
              : 'none',
        });
        if (can('notify') || can('indicate'))
          attributes.push({
            kind: 'cccd',
            spec,
            valueHandle,
            handle: handle++,
            type: hex16(GATT_TYPE.clientCharacteristicConfiguration),
            ...on,
            read: 'open',
            write: spec.permissions?.subscribe ?? 'open',
          });
        if (spec.name !== undefined)
          attributes.push({
            kind: 'userDescription',
            handle: handle++,
            type: hex16(GATT_TYPE.characteristicUserDescription),
            ...on,
            value: new TextEncoder().encode(spec.name),
            read: 'open',
            write: 'none',
          });
      }
      declaration.endHandle = handle - 1;
    }
    this.attributes = attributes;
  }

  /** The attribute at `handle`, if any. */
  at(handle: number): Attribute | undefined {
    return this.attributes[handle - 1];
  }

  /** Attributes with start ≤ handle ≤ end, in handle order. */
  range(start: number, end: number): Attribute[] {
    return this.attributes.slice(start - 1, end);
  }

  /** The value attribute of a characteristic, by the board's UUIDs. */
  valueOf(service: string, characteristic: string): Attribute | undefined {
    return this.attributes.find(
      (a) => a.kind === 'value' && a.service === service && a.characteristic === characteristic,
    );
  }
}
