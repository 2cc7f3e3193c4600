// A board from a stack nobody here wrote, for pairing over btvirt: the `ble-host` package's
// peripheral, whose one value needs an authenticated LE Secure Connections link, which asks for
// MITM and bonding, shows its passkey on its "display" and presses yes to a number
// (docs/decisions.md, "Proof against BlueZ's btvirt").
import { createRequire } from 'node:module';
import type { HciTransport } from './provisioning-board';

export const NAME = 'SC Board';
export const SERVICE = 'a3c80100-7f2e-4b61-9c0d-5e1f2a3b4c5d';
export const SECRET = 'a3c80101-7f2e-4b61-9c0d-5e1f2a3b4c5d';

interface Smp {
  on(event: 'pairingRequest', l: (req: unknown, cb: (rsp: object) => void) => void): void;
  on(
    event: 'passkeyExchange',
    l: (model: number, passkey: string | null, cb: () => void) => void,
  ): void;
}
interface Manager {
  gattDb: { setDeviceName(name: string): void; addServices(services: object[]): void };
  setAdvertisingData(data: Buffer): void;
  setScanResponseData(data: Buffer): void;
  startAdvertising(
    options: object,
    callback: (
      status: number,
      conn?: { smp: Smp; on(e: 'disconnect', l: () => void): void },
    ) => void,
  ): void;
}
const bleHost = createRequire(import.meta.url)('ble-host') as {
  BleManager: {
    create(t: HciTransport, o: object, cb: (err: Error | null, m: Manager) => void): void;
  };
  AdvertisingDataBuilder: new () => {
    addFlags(flags: string[]): unknown;
    addLocalName(complete: boolean, name: string): unknown;
    build(): Buffer;
  };
};

/** How the board answers a Pairing Request (ble-host's IO capability code), and what it shows. */
export const board: { ioCap: number; shown?: number } = { ioCap: 0 };

/** The board: MITM asked, its value readable only over an authenticated SC link. */
export function startScBoard(transport: HciTransport): Promise<void> {
  return new Promise((resolve, reject) =>
    bleHost.BleManager.create(transport, {}, (err, manager) => {
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
      const advertise = () =>
        manager.startAdvertising({}, (status, conn) => {
          if (status !== 0 || !conn) return;
          // btvirt cannot connect to a board that is not advertising: back at once.
          conn.on('disconnect', advertise);
          conn.smp.on('pairingRequest', (_req, cb) =>
            cb({ ioCap: board.ioCap, bondingFlags: 1, mitm: true }),
          );
          conn.smp.on('passkeyExchange', (_model, shown, confirm) => {
            if (shown !== null) board.shown = Number(shown);
            // Numeric comparison: the person at the board presses yes.
            confirm();
          });
        });
      advertise();
      resolve();
    }),
  );
}
