// Pairing through real noble over the virtual controller, with the station's own Security
// Manager under noble's HCI stack: what the link card learns of the key, options per pairing,
// and a refusal from this side named with its reason.
import { afterEach, describe, expect, it } from 'vitest';
import { rig, sensorBoard, smpRecorder, SENSOR_SERVICE, LED, type Rig } from './fixture';
import type { SecurityPolicy } from '../../../src/core/ble/hci/noble-smp';

let r: Rig;
afterEach(() => r.close());

async function connected(security?: SecurityPolicy) {
  const smp = smpRecorder();
  const pdus: string[] = [];
  r = rig(
    [sensorBoard()],
    {},
    {
      trace: (direction, packet) => {
        smp.trace(direction, packet);
        const p = Buffer.from(packet);
        if (p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006)
          pdus.push(`${direction}:${p.subarray(9).toString('hex')}`);
      },
      security,
    },
  );
  const ad = await r.find({ name: 'sensor' });
  const link = await r.drive(r.central.connect(ad.id));
  return { link, smp: smp.seen, pdus };
}

const NOBODY = {
  displayPasskey: () => undefined,
  enterPasskey: () => Promise.resolve(0),
  confirmNumber: () => Promise.resolve(true),
};

describe('pairing through the station’s Security Manager', () => {
  it('offers Secure Connections; a legacy-only board pairs legacy Just Works, and the card says so', async () => {
    const { link, pdus } = await connected();
    const info = await r.drive(link.requestLink!({ kind: 'pair' }));
    expect(info.securityLevel).toBe(2);
    expect(info.security).toEqual({
      encrypted: true,
      key: 'legacy',
      authenticated: false,
      keySize: 16,
      method: 'justWorks',
      bonded: false,
    });
    // Pairing Request: NoInputNoOutput, bonding and SC asked, 16 octets, the board's keys.
    expect(pdus[0]).toBe('sent:0103000910' + '0007');
    expect(pdus[1]).toBe('received:02030001100001');
    expect(link.linkInfo?.()).toEqual(info);
    expect(Buffer.from(await r.drive(link.read(SENSOR_SERVICE, LED))).length).toBe(1);
  });

  it('takes options per pairing: without bonding the board hands out no key', async () => {
    const { link, smp } = await connected();
    const info = await r.drive(link.requestLink!({ kind: 'pair', bond: false }));
    expect(info.security).toMatchObject({ encrypted: true, bonded: false });
    expect(smp).toEqual(['sent:1', 'received:2', 'sent:3', 'received:3', 'sent:4', 'received:4']);
  });

  it('says a bond is kept only where the station keeps bonds', async () => {
    let keep: (bond: { id: string; ltk: string; ediv: number }) => void = () => undefined;
    const kept = new Promise<{ id: string; ltk: string; ediv: number }>(
      (resolve) => (keep = resolve),
    );
    const { link, pdus } = await connected({
      options: { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
      user: NOBODY,
      bonds: {
        find: () => undefined,
        keep: (id, bond) =>
          keep({ id, ltk: Buffer.from(bond.ltk).toString('hex'), ediv: bond.ediv }),
      },
    });
    const info = await r.drive(link.requestLink!({ kind: 'pair' }));
    expect(info.security).toMatchObject({ bonded: true, key: 'legacy' });
    const bond = await r.drive(kept);
    // The board's Encryption Information and Central Identification are what is kept.
    const encInfo = pdus.find((pdu) => pdu.startsWith('received:06'))!;
    const centralId = pdus.find((pdu) => pdu.startsWith('received:07'))!;
    expect(bond).toEqual({
      id: link.id,
      ltk: encInfo.slice('received:06'.length),
      ediv: Buffer.from(centralId.slice('received:07'.length), 'hex').readUInt16LE(0),
    });
  });

  it('refuses a board that cannot give MITM protection when it is asked for, and says what to do', async () => {
    const { link, pdus } = await connected();
    await expect(
      r.drive(link.requestLink!({ kind: 'pair', io: 'keyboardDisplay', mitm: true })),
    ).rejects.toThrow(
      'pairing: pairing stopped: 0x03 authentication requirements — it needs MITM: give its passkey',
    );
    expect(pdus.at(-1)).toBe('sent:0503');
    expect(link.linkInfo?.()).toMatchObject({ securityLevel: 1, security: { encrypted: false } });
  });
});
