// The serial port list the adapter picker shows: known HCI dongles named, IDs parsed, and every
// entry valid against the contract's schema.
import { describe, expect, it } from 'vitest';
import { knownDongle, listSerialPorts } from '../../../../src/core/ble/hci/serial-ports';
import { serialPortSchema } from '../../../../src/core/app/contracts/ble';

describe('serial ports', () => {
  it('names a known ID exactly, else by its vendor, else not at all', () => {
    expect(knownDongle(0x2fe3, 0x0100)).toMatchObject({
      hci: true,
      name: expect.stringMatching(/hci_uart/),
    });
    expect(knownDongle(0x10c4, 0xea60)?.name).toMatch(/CP210x/);
    expect(knownDongle(0x1915, 0x1234)?.name).toBe('Nordic Semiconductor device');
    expect(knownDongle(0x1234, 0x5678)).toBeUndefined();
    expect(knownDongle(null, null)).toBeUndefined();
  });

  it("lists this machine's ports in the contract's shape, with the spec that picks each", async () => {
    const ports = await listSerialPorts();
    for (const port of ports) {
      expect(serialPortSchema.parse(port)).toEqual(port);
      expect(port.adapter).toBe(`serial:${port.path}`);
    }
  });
});
