// The station's own-address rule: the one field noble's commands carry rewritten, and static
// device addresses made and recognised as Vol 6, Part B, 1.3.2.1 says.
import { describe, expect, it } from 'vitest';
import { HCI_CMD, commandPacket } from '../../../../src/core/ble/hci/codes';
import {
  generateStaticAddress,
  isStaticAddress,
  withOwnAddressType,
} from '../../../../src/core/ble/hci/own-address';

/** A command with `length` parameter octets, each its own index, so a moved field shows. */
const command = (op: number, length: number) =>
  commandPacket(op, Buffer.from(Array.from({ length }, (_, i) => i + 0x10)));

describe('own address type in noble’s commands', () => {
  it.each([
    ['LE Set Scan Parameters', HCI_CMD.leSetScanParameters, 7, 5],
    ['LE Create Connection', HCI_CMD.leCreateConnection, 25, 12],
    ['LE Set Extended Scan Parameters', HCI_CMD.leSetExtendedScanParameters, 13, 0],
    ['LE Extended Create Connection', HCI_CMD.leExtendedCreateConnection, 42, 1],
  ])('%s: only Own_Address_Type changes', (_, op, length, at) => {
    const packet = command(op, length);
    const random = withOwnAddressType(packet, 'random');
    const changed = [...random].flatMap((b, i) => (b === packet[i] ? [] : [i - 4]));
    expect(changed).toEqual([at]);
    expect(random[4 + at]).toBe(0x01);
    expect(withOwnAddressType(random, 'public')[4 + at]).toBe(0x00);
    // The packet noble wrote is left as it was.
    expect(packet[4 + at]).toBe(0x10 + at);
  });

  it('leaves every other packet alone, and a command too short to hold the field', () => {
    for (const packet of [
      command(HCI_CMD.leSetScanEnable, 2),
      command(HCI_CMD.readBdAddr, 0),
      command(HCI_CMD.leCreateConnection, 10),
      Buffer.from('0240002000', 'hex'),
    ])
      expect(withOwnAddressType(packet, 'random')).toBe(packet);
  });
});

describe('static device addresses', () => {
  it('knows one by its top bits 11 and the rest neither all zeros nor all ones', () => {
    expect(isStaticAddress('c0:1a:7d:da:71:01')).toBe(true);
    expect(isStaticAddress('ff:ff:ff:ff:ff:fe')).toBe(true);
    expect(isStaticAddress('00:1a:7d:da:71:01')).toBe(false);
    expect(isStaticAddress('40:1a:7d:da:71:01')).toBe(false);
    expect(isStaticAddress('c0:00:00:00:00:00')).toBe(false);
    expect(isStaticAddress('ff:ff:ff:ff:ff:ff')).toBe(false);
  });

  it('makes one with its top bits set, drawing again when the rest is all zeros or all ones', () => {
    const draws = [Buffer.alloc(6), Buffer.alloc(6, 0xff), Buffer.from('010203040506', 'hex')];
    const random = () => draws.shift()!;
    expect(generateStaticAddress(random)).toBe('c6:05:04:03:02:01');
    expect(draws).toEqual([]);
    const made = new Set(Array.from({ length: 50 }, () => generateStaticAddress()));
    expect(made.size).toBe(50);
    for (const address of made) expect(isStaticAddress(address)).toBe(true);
  });
});
