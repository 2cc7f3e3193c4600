// The raw HCI socket as noble's `lib/hci-socket/hci.js` uses it: the native
// `@abandonware/bluetooth-hci-socket` on a Linux adapter, the simulated bench's virtual
// controller in tests and in the app's simulated mode, and the tap that sits between either and
// noble. Every packet, both ways, starts with its H4 packet type (hci/codes.ts HCI_PACKET).
export interface HciDevice {
  devId: number;
  devUp: boolean;
  idVendor: number | null;
  idProduct: number | null;
  busNumber: number | null;
  deviceAddress: number | null;
}

export interface HciSocket {
  bindRaw(devId?: number): number;
  bindUser(devId?: number): number;
  bindControl(): void;
  isDevUp(): boolean;
  setFilter(filter: Buffer): void;
  start(): void;
  stop(): void;
  /** One H4 packet from the host: a command or ACL data. */
  write(packet: Buffer): void;
  getDeviceList(): HciDevice[];
  /**
   * The host stack threw on a packet this socket gave it: start the controller and the host
   * stack over (the H4 socket resets the controller). A socket without it has its links
   * reported lost by the tap instead (docs/decisions.md, "A noisy serial line").
   */
  recover?(why: string): void;
  /** One H4 packet from the controller: an event or ACL data. */
  on(event: 'data', listener: (packet: Buffer) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}
