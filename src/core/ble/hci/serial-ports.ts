// The serial ports an HCI dongle may be on, for the adapter picker: serialport's list with the
// USB vendor/product IDs, and what a known ID usually is. The table names the boards and USB
// bridges that carry HCI UART firmware on benches (docs/decisions.md, "H4 transports"); a
// bridge chip (CP210x, CH34x, FTDI) says only that some board is behind it.
import { formatAdapterSpec, DEFAULT_SERIAL_BAUD } from '../adapter-spec';
import { errorMessage } from '../../errors/message';

export interface KnownDongle {
  vendorId: number;
  /** Undefined: any product of this vendor. */
  productId?: number;
  name: string;
  /** Whether the ID is the HCI firmware's own (true) or a bridge/debugger that may carry it. */
  hci: boolean;
}

const KNOWN_HCI_DONGLES: readonly KnownDongle[] = [
  {
    vendorId: 0x2fe3,
    productId: 0x0100,
    name: 'Zephyr hci_uart (nRF52840 dongle, USB CDC ACM)',
    hci: true,
  },
  { vendorId: 0x2fe3, name: 'Zephyr USB device (check it runs hci_uart)', hci: false },
  {
    vendorId: 0x1915,
    productId: 0x521f,
    name: 'Nordic nRF52840 dongle in its bootloader (flash hci_uart first)',
    hci: false,
  },
  { vendorId: 0x1915, name: 'Nordic Semiconductor device', hci: false },
  { vendorId: 0x1366, name: 'SEGGER J-Link VCOM (nRF52840 DK, Silicon Labs kit)', hci: false },
  {
    vendorId: 0x10c4,
    productId: 0xea60,
    name: 'Silicon Labs CP210x USB-UART (ESP32 DevKit, EFR32 boards)',
    hci: false,
  },
  { vendorId: 0x1a86, productId: 0x7523, name: 'WCH CH340 USB-UART (ESP32 boards)', hci: false },
  {
    vendorId: 0x1a86,
    productId: 0x55d4,
    name: 'WCH CH9102/CH343 USB-UART (ESP32 boards)',
    hci: false,
  },
  { vendorId: 0x0403, name: 'FTDI USB-UART (ESP32 boards, TI and other kits)', hci: false },
  { vendorId: 0x303a, name: 'Espressif USB Serial/JTAG (ESP32-S3/C3)', hci: false },
  {
    vendorId: 0x0451,
    productId: 0xbef3,
    name: 'TI XDS110 (CC26xx LaunchPad with HCI firmware)',
    hci: false,
  },
  { vendorId: 0x0451, name: 'Texas Instruments device', hci: false },
];

export interface SerialPortInfo {
  path: string;
  /** `serial:<path>`: what to pick it with. */
  adapter: string;
  vendorId: number | null;
  productId: number | null;
  manufacturer: string | null;
  serialNumber: string | null;
  /** What the known-dongle table says this ID is. */
  knownAs: string | null;
  /** The ID is an HCI firmware's own: the likeliest dongle. */
  likelyHci: boolean;
}

class SerialListError extends Error {
  override name = 'SerialListError';
}

function hexId(text: string | undefined): number | null {
  if (!text || !/^[0-9a-f]{1,4}$/i.test(text)) return null;
  return parseInt(text, 16);
}

export function knownDongle(
  vendorId: number | null,
  productId: number | null,
): KnownDongle | undefined {
  if (vendorId === null) return undefined;
  return (
    KNOWN_HCI_DONGLES.find((d) => d.vendorId === vendorId && d.productId === productId) ??
    KNOWN_HCI_DONGLES.find((d) => d.vendorId === vendorId && d.productId === undefined)
  );
}

/** The machine's serial ports, likely HCI dongles first, then USB ones, then the rest by path. */
export async function listSerialPorts(): Promise<SerialPortInfo[]> {
  let ports: Awaited<ReturnType<typeof import('serialport').SerialPort.list>>;
  try {
    const { SerialPort } = await import('serialport');
    ports = await SerialPort.list();
  } catch (err) {
    throw new SerialListError(`the serial ports could not be listed (${errorMessage(err)})`);
  }
  const infos = ports.map((port): SerialPortInfo => {
    const vendorId = hexId(port.vendorId);
    const productId = hexId(port.productId);
    const known = knownDongle(vendorId, productId);
    return {
      path: port.path,
      adapter: formatAdapterSpec({ kind: 'serial', path: port.path, baud: DEFAULT_SERIAL_BAUD }),
      vendorId,
      productId,
      manufacturer: port.manufacturer ?? null,
      serialNumber: port.serialNumber ?? null,
      knownAs: known?.name ?? null,
      likelyHci: known?.hci ?? false,
    };
  });
  const rank = (p: SerialPortInfo) =>
    p.likelyHci ? 0 : p.knownAs ? 1 : p.vendorId !== null ? 2 : 3;
  return infos.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
}
