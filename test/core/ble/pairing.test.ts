// Pairing through real noble over the virtual controller, with the station's own Security
// Manager under noble's HCI stack: what the link card learns of the key, options per pairing,
// and a refusal from this side named with its reason.
import { afterEach, describe, expect, it } from 'vitest';
import {
  board,
  rig,
  sensorBoard,
  smpRecorder,
  SENSOR_SERVICE,
  BUTTON,
  LED,
  type Rig,
} from './fixture';
import type { SecurityPolicy } from '../../../src/core/ble/hci/noble-smp';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBonds } from '../../helpers/open-bonds';
import { boardFlashKey } from '../../../src/core/ble/security-manager/bond-key';
import type { BondStore, StoredBond } from '../../../src/core/ble/security-manager/bond-store';
import { MemoryCredentialStore } from '../../../src/core/secrets/credential-store';
import type { BoardSpecInput } from '../../../src/core/ble/sim/board-schema';
import { SIM_BOARDS_DIR } from '../../../src/core/ble/sim/board-file';

let r: Rig;
afterEach(() => r.close());

const SECRET = 'a3c80009-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** A board whose one value needs an encrypted link. */
const lockedBoard = board({
  name: 'Locked',
  address: 'd6:3a:41:00:55:01',
  gatt: [
    {
      uuid: SENSOR_SERVICE,
      characteristics: [
        {
          uuid: SECRET,
          properties: ['read'],
          permissions: { read: 'encrypted' },
          value: { utf8: 'sesame' },
          maxLength: 20,
        },
      ],
    },
  ],
});

async function connected(security?: SecurityPolicy, boards = [sensorBoard()], bonds?: BondStore) {
  const smp = smpRecorder();
  const pdus: string[] = [];
  r = rig(
    boards,
    {},
    {
      trace: (direction, packet) => {
        smp.trace(direction, packet);
        const p = Buffer.from(packet);
        if (p[0] === 0x02 && p.length > 9 && p.readUInt16LE(7) === 0x0006)
          pdus.push(`${direction}:${p.subarray(9).toString('hex')}`);
      },
      security,
      bonds,
    },
  );
  const ad = await r.find({ name: boards[0]!.name.split(' ').at(-1)!.toLowerCase() });
  const link = await r.drive(r.central.connect(ad.id));
  return { link, smp: smp.seen, pdus };
}

const NOBODY = {
  displayPasskey: () => undefined,
  enterPasskey: () => Promise.resolve(0),
  confirmNumber: () => Promise.resolve(true),
};

/** A station that types `passkey` when asked, and the passkeys it typed. */
function typing(passkey: number, options: SecurityPolicy['options']) {
  const typed: number[] = [];
  const policy: SecurityPolicy = {
    options,
    user: {
      ...NOBODY,
      enterPasskey: () => {
        typed.push(passkey);
        return Promise.resolve(passkey);
      },
    },
  };
  return { policy, typed };
}

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
      'pairing: the station stopped pairing: 0x03 authentication requirements — MITM was asked, and the board has neither display nor keyboard (NoInputNoOutput), so it can only pair by Just Works: ask for less (no MITM), or use firmware that shows a passkey',
    );
    expect(pdus.at(-1)).toBe('sent:0503');
    expect(link.linkInfo?.()).toMatchObject({ securityLevel: 1, security: { encrypted: false } });
  });

  it('reconnects to a bonded board encrypted with the stored key, without pairing again', async () => {
    const bonds = new Map<string, StoredBond>();
    let kept: () => void = () => undefined;
    const bonded = new Promise<void>((resolve) => (kept = resolve));
    const policy: SecurityPolicy = {
      options: { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
      user: NOBODY,
      bonds: {
        find: (id) => bonds.get(id),
        keep: (id, bond) => {
          bonds.set(id, bond);
          kept();
        },
      },
    };
    const first = await connected(policy, [lockedBoard]);
    expect(Buffer.from(await r.drive(first.link.read(SENSOR_SERVICE, SECRET))).toString()).toBe(
      'sesame',
    );
    await r.drive(bonded);
    expect(first.smp).toContain('received:7');
    await r.drive(first.link.disconnect());
    first.smp.length = 0;

    const ad = await r.find({ name: 'locked' });
    const again = await r.drive(r.central.connect(ad.id));
    expect(Buffer.from(await r.drive(again.read(SENSOR_SERVICE, SECRET))).toString()).toBe(
      'sesame',
    );
    // Encrypted with the bond's EDIV, Rand and LTK: not one pairing PDU on the second link.
    expect(first.smp).toEqual([]);
    expect(again.linkInfo?.()).toMatchObject({
      securityLevel: 2,
      security: { encrypted: true, key: 'legacy', bonded: true, method: 'justWorks' },
    });
    await r.drive(again.disconnect());

    // A pair request that requires MITM, which the Just Works bond lacks, pairs (and is refused);
    // one that does not is encrypted with the bond.
    const strict = await r.drive(r.central.connect((await r.find({ name: 'locked' })).id));
    await expect(
      r.drive(strict.requestLink!({ kind: 'pair', io: 'keyboardDisplay', mitm: true })),
    ).rejects.toThrow(/MITM was asked/);
    expect(first.smp).toEqual(['sent:1', 'received:2', 'sent:5']);
    const lenient = await r.drive(strict.requestLink!({ kind: 'pair', mitm: false }));
    expect(lenient.security).toMatchObject({ fromBond: true, method: 'justWorks' });
    expect(first.smp).toHaveLength(3);
    await r.drive(strict.disconnect());

    // The board forgot its bonds: its answer is PIN or Key Missing, said with what to do.
    r.bench.setFaults(again.id, { forgetBonds: true });
    const ad2 = await r.find({ name: 'locked' });
    const forgotten = await r.drive(r.central.connect(ad2.id));
    await expect(r.drive(forgotten.read(SENSOR_SERVICE, SECRET))).rejects.toThrow(
      /encryption refused: .*0x06.* — the board lost its bond with this station: forget the bond and pair again/,
    );
  });

  it('files the bond in the station’s encrypted store under the adapter’s address, and uses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const credentials = new MemoryCredentialStore();
    const bonds = await openBonds(dir, credentials, { kind: 'keychain' });
    const first = await connected(undefined, [lockedBoard], bonds);
    await r.drive(first.link.read(SENSOR_SERVICE, SECRET));
    await r.drive(first.link.disconnect());
    const reopened = await openBonds(dir, credentials, { kind: 'keychain' });
    const [bond] = reopened.list();
    expect(bond).toMatchObject({
      // The simulated controller's public address (Read BD_ADDR), as noble read it.
      station: '00:1a:7d:da:71:01',
      board: 'd6:3a:41:00:55:01',
      security: { encrypted: true, key: 'legacy', bonded: true },
    });
    first.smp.length = 0;
    const ad = await r.find({ name: 'locked' });
    const again = await r.drive(r.central.connect(ad.id));
    expect(Buffer.from(await r.drive(again.read(SENSOR_SERVICE, SECRET))).toString()).toBe(
      'sesame',
    );
    expect(first.smp).toEqual([]);
  });

  it('keeps the board’s side of a bond in the bench’s flash, sealed: after a restart the kept bond still encrypts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonds-'));
    const stateFile = join(dir, 'bench-state.json');
    const credentials = new MemoryCredentialStore();
    const open = async () => {
      const smp = smpRecorder();
      const bonds = await openBonds(dir, credentials, { kind: 'keychain' });
      r = rig(
        [lockedBoard],
        { stateFile, flashKey: boardFlashKey(bonds.keySource) },
        { trace: smp.trace, bonds },
      );
      const link = await r.drive(r.central.connect((await r.find({ name: 'locked' })).id));
      const value = Buffer.from(await r.drive(link.read(SENSOR_SERVICE, SECRET))).toString();
      return { link, value, smp: smp.seen, bonds };
    };
    const first = await open();
    expect(first.value).toBe('sesame');
    expect(first.smp).toContain('received:7');
    await r.close();

    // A new process on the same data folder: the board's flash and the station's store agree.
    const again = await open();
    expect(again.value).toBe('sesame');
    expect(again.smp).toEqual([]);
    expect(again.link.linkInfo?.()).toMatchObject({ security: { bonded: true } });
    // The board's bonds are sealed: neither the LTK nor the station's IRK is in the file.
    const text = readFileSync(stateFile, 'utf8');
    const { ltk } = again.bonds.list()[0]!;
    expect(Object.keys(JSON.parse(text).sealedBonds)).toHaveLength(1);
    expect(text).not.toContain(ltk);
    expect(text).not.toMatch(/"ltk"|"irk"/);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);

    // Forgetting its bonds erases them from the flash too.
    r.bench.setFaults(again.link.id, { forgetBonds: true });
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).sealedBonds).toBeUndefined();
  });

  it('names a bonded board advertising under a private address by the identity its IRK resolves to', async () => {
    const bonds = await openBonds(
      mkdtempSync(join(tmpdir(), 'bonds-')),
      new MemoryCredentialStore(),
      { kind: 'keychain' },
    );
    // The Core Specification's sample IRK and the private address it makes (Vol 3, Part H, D.7).
    const irk = Uint8Array.from(Buffer.from('ec0234a357c8ad05341010a60a397d9b', 'hex')).reverse();
    const identity = 'f0:00:00:00:00:01';
    bonds.keep(
      '00:1a:7d:da:71:01',
      identity,
      {
        ltk: new Uint8Array(16),
        ediv: 0,
        rand: new Uint8Array(8),
        irk,
        identityAddress: { address: identity, type: 'random' },
      },
      { encrypted: true, authenticated: true, key: 'sc', keySize: 16, bonded: true },
      new Date(),
    );
    r = rig(
      [
        { ...sensorBoard(), name: 'Private', address: '70:81:94:0d:fb:aa', addressType: 'random' },
        sensorBoard(),
      ],
      {},
      { bonds },
    );
    const ads = await r.collect({}, 200);
    const byName = new Map(ads.map((ad) => [ad.localName, ad]));
    expect(byName.get('Private')).toMatchObject({
      address: '70:81:94:0d:fb:aa',
      identityAddress: identity,
    });
    expect(byName.get('Test Sensor')?.identityAddress).toBeUndefined();
  });

  it('a board’s Security Request starts pairing, then encryption with the bond on the next link', async () => {
    const bonds = new Map<string, StoredBond>();
    let kept: () => void = () => undefined;
    const keptOnce = new Promise<void>((resolve) => (kept = resolve));
    const asking = { ...lockedBoard, name: 'Asking', security: { securityRequest: true } };
    const first = await connected(
      {
        options: { io: 'noInputNoOutput', bond: true, mitm: false, sc: true },
        user: NOBODY,
        bonds: {
          find: (id) => bonds.get(id),
          keep: (id, bond) => {
            bonds.set(id, bond);
            kept();
          },
        },
      },
      [asking],
    );
    const encrypted = (link: typeof first.link) =>
      new Promise<void>((resolve) => {
        if (link.linkInfo?.()?.security?.encrypted) resolve();
        link.onLinkChange?.((info) => info.security?.encrypted && resolve());
      });
    await r.drive(encrypted(first.link));
    expect(first.smp.slice(0, 3)).toEqual(['received:11', 'sent:1', 'received:2']);
    // noble's GATT client carries on: nothing it sent was refused.
    expect(Buffer.from(await r.drive(first.link.read(SENSOR_SERVICE, SECRET))).toString()).toBe(
      'sesame',
    );
    await r.drive(keptOnce);
    expect([...bonds.keys()]).toEqual([first.link.id]);
    await r.drive(first.link.disconnect());
    first.smp.length = 0;
    const ad = await r.find({ name: 'asking' });
    const again = await r.drive(r.central.connect(ad.id));
    await r.drive(encrypted(again));
    expect(first.smp).toEqual(['received:11']);
    expect(again.linkInfo?.()?.security).toMatchObject({ encrypted: true, bonded: true });
  });
});

/** A Zephyr-like board: SC only, shows a fixed passkey, bonds, refuses Just Works over a bond. */
const PASSKEY = 123_456;
const zephyrLike = board({
  name: 'Zephyr',
  address: 'd6:3a:41:00:55:02',
  gatt: [
    {
      uuid: SENSOR_SERVICE,
      characteristics: [
        {
          uuid: SECRET,
          properties: ['read'],
          permissions: { read: 'sc' },
          value: { utf8: 'sesame' },
          maxLength: 20,
        },
        {
          uuid: LED,
          properties: ['read'],
          permissions: { read: 'authenticate' },
          value: { hex: '01' },
        },
      ],
    },
  ],
  security: {
    mode: 'sc-only',
    ioCapability: 'displayOnly',
    passkey: PASSKEY,
    bonding: { allowUnauthOverwrite: false },
  },
});

function keeping(bonds: Map<string, StoredBond>, io: 'keyboardOnly' | 'noInputNoOutput') {
  const typed: number[] = [];
  const policy: SecurityPolicy = {
    options: { io, bond: true, mitm: io !== 'noInputNoOutput', sc: true },
    user: {
      ...NOBODY,
      enterPasskey: () => {
        typed.push(PASSKEY);
        return Promise.resolve(PASSKEY);
      },
    },
    bonds: { find: (id) => bonds.get(id), keep: (id, bond) => bonds.set(id, bond) },
  };
  return { policy, typed };
}

describe('simulated boards that ask for security as Zephyr does', () => {
  it('an SC-only board refuses legacy pairing with Authentication Requirements', async () => {
    const { link, pdus } = await connected(undefined, [zephyrLike]);
    await expect(r.drive(link.requestLink!({ kind: 'pair', sc: false }))).rejects.toThrow(
      /the board refused pairing: 0x03 authentication requirements/,
    );
    expect(pdus.at(-1)).toBe('received:0503');
  });

  it('pairs Secure Connections Passkey Entry with the passkey the board shows, and reads at level 4', async () => {
    const { policy, typed } = keeping(new Map(), 'keyboardOnly');
    const { link, smp } = await connected(policy, [zephyrLike]);
    // The first read is refused for want of security: the station pairs, noble sends it again.
    expect(Buffer.from(await r.drive(link.read(SENSOR_SERVICE, SECRET))).toString()).toBe('sesame');
    expect(typed).toEqual([PASSKEY]);
    // Public keys, twenty confirm/random rounds, the DHKey checks; no EncKey under SC.
    expect(smp.filter((pdu) => pdu === 'sent:3')).toHaveLength(20);
    expect(smp).toContain('received:13');
    expect(smp).not.toContain('received:6');
    expect(link.linkInfo?.()).toMatchObject({
      securityLevel: 4,
      security: { key: 'sc', authenticated: true, keySize: 16, method: 'passkeyEntry' },
    });
  });

  it('a wrong passkey fails the confirm check: nothing is read', async () => {
    const { policy } = keeping(new Map(), 'keyboardOnly');
    policy.user = { ...NOBODY, enterPasskey: () => Promise.resolve(PASSKEY + 1) };
    const { link, pdus } = await connected(policy, [zephyrLike]);
    await expect(r.drive(link.requestLink!({ kind: 'pair' }))).rejects.toThrow(/0x04/);
    expect(pdus.at(-1)).toBe('received:0504');
  });

  it('reconnects bonded with the SC key and no pairing PDU; Just Works over the bond is refused', async () => {
    const bonds = new Map<string, StoredBond>();
    const { policy } = keeping(bonds, 'keyboardOnly');
    const first = await connected(policy, [zephyrLike]);
    await r.drive(first.link.read(SENSOR_SERVICE, SECRET));
    expect(bonds.size).toBe(1);
    await r.drive(first.link.disconnect());
    first.smp.length = 0;

    const ad = await r.find({ name: 'zephyr' });
    const again = await r.drive(r.central.connect(ad.id));
    // Unencrypted, with a key the board holds: Insufficient Encryption, and the stored key serves.
    expect(Buffer.from(await r.drive(again.read(SENSOR_SERVICE, SECRET))).toString()).toBe(
      'sesame',
    );
    expect(first.smp).toEqual([]);
    expect(again.linkInfo?.()?.security).toMatchObject({ key: 'sc', authenticated: true });
    const stored = bonds.get(again.id)!;

    await r.drive(again.disconnect());

    // A pair request to a bonded board is encrypted with the bond, not paired again.
    const third = await r.drive(r.central.connect((await r.find({ name: 'zephyr' })).id));
    const rebonded = await r.drive(
      third.requestLink!({ kind: 'pair', io: 'noInputNoOutput', mitm: false }),
    );
    expect(rebonded.security).toMatchObject({ authenticated: true, fromBond: true });
    expect(first.smp).toEqual([]);
    await r.drive(third.disconnect());

    // A station that forgot its side of the bond pairs again; without MITM it meets Zephyr's
    // refusal to overwrite the bond.
    bonds.clear();
    const fourth = await r.drive(r.central.connect((await r.find({ name: 'zephyr' })).id));
    await expect(
      r.drive(fourth.requestLink!({ kind: 'pair', io: 'noInputNoOutput', mitm: false })),
    ).rejects.toThrow(/the board refused pairing: 0x03/);
    expect(first.smp).toEqual(['sent:1', 'received:5']);
    await r.drive(fourth.disconnect());

    // The board forgot its bonds: the stored key meets PIN or Key Missing, said with what to do.
    bonds.set(again.id, stored);
    r.bench.setFaults(fourth.id, { forgetBonds: true });
    const fifth = await r.drive(r.central.connect((await r.find({ name: 'zephyr' })).id));
    await expect(r.drive(fifth.read(SENSOR_SERVICE, SECRET))).rejects.toThrow(
      /0x06.* — the board lost its bond with this station: forget the bond and pair again/,
    );
  });

  it('an SC-only board refuses Just Works before its Pairing Response, as Zephyr needs level 4', async () => {
    const { policy } = keeping(new Map(), 'noInputNoOutput');
    const { link, smp } = await connected(policy, [zephyrLike]);
    await expect(r.drive(link.read(SENSOR_SERVICE, SECRET))).rejects.toThrow(
      /the board refused pairing: 0x03 authentication requirements/,
    );
    // Zephyr's remote_sec_level_reachable: Pairing Failed in place of the response
    // (docs/decisions/simulated-bench.md, "Held to Zephyr").
    expect(smp[0]).toBe('sent:1');
    expect(smp).toContain('received:5');
    expect(smp).not.toContain('received:2');
  });

  it('a board with nothing to show pairs Secure Connections Just Works: encrypted, not authenticated', async () => {
    const justWorks = { ...zephyrLike, name: 'Plain', security: { mode: 'sc' as const } };
    const { policy } = keeping(new Map(), 'noInputNoOutput');
    const { link } = await connected(policy, [justWorks]);
    const info = await r.drive(link.requestLink!({ kind: 'pair' }));
    expect(info).toMatchObject({
      securityLevel: 2,
      security: { key: 'sc', authenticated: false, method: 'justWorks' },
    });
  });
});

describe('the shipped Zephyr Secure board', () => {
  it('pairs only LE Secure Connections with the passkey its display shows', async () => {
    const file = JSON.parse(readFileSync(join(SIM_BOARDS_DIR, 'zephyr-secure.json'), 'utf8')) as {
      boards: BoardSpecInput[];
    };
    const shown = 246_801;
    const { policy, typed } = typing(shown, {
      io: 'keyboardOnly',
      bond: true,
      mitm: true,
      sc: true,
    });
    const { link } = await connected(policy, file.boards);
    await expect(r.drive(link.requestLink!({ kind: 'pair', sc: false }))).rejects.toThrow(/0x03/);
    await r.drive(link.disconnect());
    const again = await r.drive(r.central.connect((await r.find({ name: 'secure' })).id));
    const info = await r.drive(again.requestLink!({ kind: 'pair' }));
    expect(typed).toEqual([shown]);
    expect(info).toMatchObject({ securityLevel: 4, security: { key: 'sc', bonded: false } });
  });
});

describe('security as the board asks for it', () => {
  it('a refusal on a legacy link pairs again at the level needed, once, and the read is sent once more', async () => {
    const mixed = {
      ...zephyrLike,
      name: 'Mixed',
      security: { ...zephyrLike.security, mode: 'sc' as const },
    };
    const { policy, typed } = keeping(new Map(), 'keyboardOnly');
    policy.options = { ...policy.options, sc: false };
    const { link, smp } = await connected(policy, [mixed]);
    expect(Buffer.from(await r.drive(link.read(SENSOR_SERVICE, SECRET))).toString()).toBe('sesame');
    // Legacy Passkey Entry first (the station's choice), then Secure Connections for the value.
    expect(typed).toEqual([PASSKEY, PASSKEY]);
    expect(smp.filter((pdu) => pdu === 'sent:1')).toHaveLength(2);
    expect(smp).toContain('sent:12');
    expect(link.linkInfo?.()).toMatchObject({ securityLevel: 4, security: { key: 'sc' } });
  });

  it('a station that cannot give MITM says so once, and the refused read fails', async () => {
    const { policy } = keeping(new Map(), 'noInputNoOutput');
    const plain = { ...zephyrLike, name: 'Quiet', security: { mode: 'sc' as const } };
    const { link, smp } = await connected(policy, [plain]);
    await expect(r.drive(link.read(SENSOR_SERVICE, LED))).rejects.toThrow(
      /0x03 authentication requirements/,
    );
    expect(smp.filter((pdu) => pdu === 'sent:1')).toHaveLength(2);
  });
});

describe('a simulated board with privacy', () => {
  it('advertises under a private address that rotates, which the bond’s IRK resolves to its identity', async () => {
    const bonds = await openBonds(
      mkdtempSync(join(tmpdir(), 'bonds-')),
      new MemoryCredentialStore(),
      { kind: 'keychain' },
    );
    const identity = 'd6:3a:41:00:55:03';
    const hidden = board({
      name: 'Hidden',
      address: identity,
      security: { mode: 'sc', privacy: { rotateSeconds: 1 } },
    });
    const { link, pdus } = await connected(undefined, [hidden], bonds);
    const rpa = link.id;
    expect(rpa).not.toBe(identity.replaceAll(':', ''));
    await r.drive(link.requestLink!({ kind: 'pair' }));
    // The board handed out its IRK and static random identity address (SC: no encryption key).
    // The keys come after the encryption the pair request answers on.
    for (let t = 0; t < 500 && !bonds.list().length; t += 5) await r.clock.advance(5);
    expect(pdus.some((pdu) => pdu.startsWith('received:08'))).toBe(true);
    expect(pdus.find((pdu) => pdu.startsWith('received:09'))).toBe(
      `received:0901${Buffer.from(identity.replaceAll(':', ''), 'hex').reverse().toString('hex')}`,
    );
    expect(bonds.list()).toMatchObject([{ board: identity }]);
    await r.drive(link.disconnect());

    const ads = await r.collect({}, 3_000);
    const addresses = new Set(ads.map((ad) => ad.address));
    expect(addresses.size).toBeGreaterThan(1);
    expect(addresses.has(identity)).toBe(false);
    expect(ads.every((ad) => ad.identityAddress === identity)).toBe(true);
  });
});

/**
 * The sensor with its button's notifications and its LED behind an authenticated link, as
 * Zephyr's BT_GATT_CCC and BT_GATT_PERM_WRITE_AUTHEN permissions put them.
 */
function guardedSensor(security: BoardSpecInput['security']): BoardSpecInput {
  const spec = sensorBoard({ name: 'Guarded Sensor', address: 'd6:3a:41:00:55:02', security });
  return {
    ...spec,
    gatt: spec.gatt!.map((service) => ({
      ...service,
      characteristics: (service.characteristics ?? []).map((c) =>
        c.uuid === BUTTON
          ? { ...c, permissions: { subscribe: 'authenticate' as const } }
          : c.uuid === LED
            ? { ...c, permissions: { write: 'authenticate' as const } }
            : c,
      ),
    })),
  };
}

describe('a value refused on a Just Works link: noble leaves a refused write unanswered', () => {
  // noble's gatt.js answers a refused read (with no bytes) but not a refused write or a
  // subscribe's CCCD: these waited out the operation's timeout ("no answer within 2 s").
  it('a board that pairs only Just Works: the subscribe and the write fail at once, saying why', async () => {
    const why =
      /MITM was asked, and the board has neither display nor keyboard \(NoInputNoOutput\)/;
    let { link } = await connected(undefined, [guardedSensor({ mode: 'sc' })]);
    await expect(r.drive(link.subscribe(SENSOR_SERVICE, BUTTON, () => undefined))).rejects.toThrow(
      why,
    );
    ({ link } = await connected(undefined, [guardedSensor({ mode: 'sc' })]));
    await expect(r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1)))).rejects.toThrow(why);
  });

  // One listener per subscribe, whatever the pairing did on the way. This board asks for MITM
  // from its first pairing, so the retry after a Just Works link is not reached here.
  it('a board that shows a passkey: the subscribe pairs first, then each value comes once', async () => {
    const { policy, typed } = typing(PASSKEY, {
      io: 'keyboardOnly',
      bond: false,
      mitm: false,
      sc: true,
    });
    const spec = guardedSensor({ mode: 'sc', ioCapability: 'displayOnly', passkey: PASSKEY });
    const { link } = await connected(policy, [spec]);
    const values: string[] = [];
    await r.drive(
      link.subscribe(SENSOR_SERVICE, BUTTON, (v) => values.push(Buffer.from(v).toString('hex'))),
    );
    expect(typed).toEqual([PASSKEY]);
    r.bench.pressButton(r.bench.boards()[0]!.id);
    await r.clock.advance(200);
    expect(values).toHaveLength(1);
    await r.drive(link.write(SENSOR_SERVICE, LED, Uint8Array.of(1)));
  });
});
