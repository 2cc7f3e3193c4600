// A board from a stack nobody here wrote, for pairing over btvirt: the `ble-host` package's
// peripheral, whose one value needs an authenticated LE Secure Connections link, which asks for
// MITM and bonding, shows its passkey on its "display", has its person type the passkey the
// station shows, presses yes to a number, can refuse legacy pairing as Zephyr's
// CONFIG_BT_SMP_SC_ONLY does, tells the identity the central handed out, and can forget its
// bonds (docs/decisions.md, "Proof against BlueZ's btvirt").
import { createRequire } from 'node:module';
import type { HciTransport } from './provisioning-board';

export const NAME = 'SC Board';
export const SERVICE = 'a3c80100-7f2e-4b61-9c0d-5e1f2a3b4c5d';
export const SECRET = 'a3c80101-7f2e-4b61-9c0d-5e1f2a3b4c5d';

/** What ble-host's peripheral says at the end of a pairing: the central's identity among it. */
interface PairingComplete {
  /** Both sides bonded: ble-host stored the keys (it does so only at the pairing's end). */
  bond: boolean;
  initIrk?: Buffer;
  initIdentityAddress?: { addressType: 'public' | 'random'; address: string };
}
interface Smp {
  on(event: 'pairingRequest', l: (req: { sc: boolean }, cb: (rsp: object) => void) => void): void;
  on(event: 'pairingComplete', l: (res: PairingComplete) => void): void;
  on(
    event: 'passkeyExchange',
    l: (model: number, passkey: string | null, cb: (typed?: number) => void) => void,
  ): void;
  sendPairingFailed(reason: number): void;
}
interface Connection {
  smp: Smp;
  peerAddress: string;
  peerAddressType: 'public' | 'random';
  on(e: 'disconnect', l: () => void): void;
}
interface Manager {
  gattDb: { setDeviceName(name: string): void; addServices(services: object[]): void };
  setAdvertisingData(data: Buffer): void;
  setScanResponseData(data: Buffer): void;
  startAdvertising(options: object, callback: (status: number, conn?: Connection) => void): void;
  removeBond(type: 'public' | 'random', address: string): void;
}
const bleHost = createRequire(import.meta.url)('ble-host') as {
  BleManager: {
    create(t: HciTransport, o: object, cb: (err: Error | null, m: Manager) => void): void;
  };
  AssociationModels: { PASSKEY_ENTRY_RSP_INPUTS: number; PASSKEY_ENTRY_BOTH_INPUTS: number };
  SmpErrors: { AUTHENTICATION_REQUIREMENTS: number };
  AdvertisingDataBuilder: new () => {
    addFlags(flags: string[]): unknown;
    addLocalName(complete: boolean, name: string): unknown;
    build(): Buffer;
  };
};

/** How the board answers a Pairing Request, what it shows and what its person types. */
export const board: {
  /** ble-host's IO capability code: 0 DisplayOnly, 1 DisplayYesNo, 2 KeyboardOnly, 3 none. */
  ioCap: number;
  /** Whether it asks for MITM (a board with no means for it does not). */
  mitm?: boolean;
  /** Refuses a pairing without Secure Connections (Zephyr's CONFIG_BT_SMP_SC_ONLY). */
  scOnly?: boolean;
  /** The six digits on its display: a passkey or a number to compare. */
  shown?: number;
  /** What the person at the board types when the board has to enter a passkey. */
  type?: () => Promise<number>;
  /** The identity the central handed out in the last pairing (its IRK, its address), if any. */
  central?: { irk?: string; address?: string; type?: 'public' | 'random' };
  /**
   * Pairings the board reported complete (ble-host's pairingComplete: every key exchanged both
   * ways), each with whether it bonded.
   */
  completed: { bonded: boolean }[];
} = { ioCap: 0, completed: [] };

export interface ScBoard {
  /**
   * The board forgets every bond with the last central it saw (Zephyr's bt_unpair), once that
   * central's link is down on the board's side too (ble-host refuses it while connected).
   */
  forgetBonds(): Promise<void>;
}

/**
 * The board: its value readable only over an authenticated SC link. With `address`, a static
 * random address of its own (what a command line names with --board), else its controller's.
 */
export function startScBoard(
  transport: HciTransport,
  { address }: { address?: string } = {},
): Promise<ScBoard> {
  return new Promise((resolve, reject) =>
    bleHost.BleManager.create(transport, { staticRandomAddress: address }, (err, manager) => {
      if (err) return reject(err);
      manager.gattDb.setDeviceName(NAME);
      manager.gattDb.addServices([
        {
          uuid: SERVICE,
          characteristics: [
            {
              uuid: SECRET,
              properties: ['read'],
              readPerm: 'encrypted-mitm-sc',
              value: Buffer.from('sesame'),
            },
          ],
        },
      ]);
      const ad = new bleHost.AdvertisingDataBuilder();
      ad.addFlags(['leGeneralDiscoverableMode', 'brEdrNotSupported']);
      manager.setAdvertisingData(ad.build());
      const rsp = new bleHost.AdvertisingDataBuilder();
      rsp.addLocalName(true, NAME);
      manager.setScanResponseData(rsp.build());
      const models = bleHost.AssociationModels;
      let central: Connection | undefined;
      let down: Promise<void> = Promise.resolve();
      const advertise = () =>
        manager.startAdvertising({}, (status, conn) => {
          if (status !== 0 || !conn) return;
          central = conn;
          down = new Promise((gone) => conn.on('disconnect', () => gone()));
          // btvirt cannot connect to a board that is not advertising: back at once.
          conn.on('disconnect', advertise);
          conn.smp.on('pairingRequest', (req, cb) => {
            // Zephyr's SC-only board answers a legacy request with Authentication Requirements.
            if (board.scOnly && !req.sc)
              return conn.smp.sendPairingFailed(bleHost.SmpErrors.AUTHENTICATION_REQUIREMENTS);
            cb({ ioCap: board.ioCap, bondingFlags: 1, mitm: board.mitm ?? true });
          });
          conn.smp.on('pairingComplete', (res) => {
            board.completed.push({ bonded: res.bond });
            board.central = {
              irk: res.initIrk?.toString('hex'),
              address: res.initIdentityAddress?.address.toLowerCase(),
              type: res.initIdentityAddress?.addressType,
            };
          });
          conn.smp.on('passkeyExchange', (model, shown, answer) => {
            if (
              model === models.PASSKEY_ENTRY_RSP_INPUTS ||
              model === models.PASSKEY_ENTRY_BOTH_INPUTS
            ) {
              void board.type?.().then(answer);
              return;
            }
            if (shown !== null) board.shown = Number(shown);
            // Numeric comparison: the person at the board presses yes.
            answer();
          });
        });
      advertise();
      resolve({
        forgetBonds: async () => {
          if (!central) return;
          await down;
          manager.removeBond(central.peerAddressType, central.peerAddress);
        },
      });
    }),
  );
}
