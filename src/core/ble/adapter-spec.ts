// Where a central's HCI comes from, as one text form that every front end, the BLE process and
// the audit stores share (docs/decisions.md, "Adapter spec"):
// `sim`, `hci<N>`, `serial:<path>[@<baud>]`, `tcp:<host>:<port>`, `unix:<path>`,
// `usb:<vid>:<pid>`, `native`. Parsed here once; everything else holds the parsed value or the
// canonical text `formatAdapterSpec` gives back. Browser-safe: the renderer checks a typed spec
// with the same rules.
import { z } from 'zod';

/** Zephyr's `hci_uart` sample and most HCI-UART firmware run at this rate with RTS/CTS. */
export const DEFAULT_SERIAL_BAUD = 1_000_000;

export type AdapterSpec =
  /** The simulated bench's virtual controller. */
  | { kind: 'sim' }
  /** A Linux kernel adapter through the HCI socket (`hci0` is index 0). */
  | { kind: 'hci'; index: number }
  /** An HCI controller on a serial port, H4 framing. */
  | { kind: 'serial'; path: string; baud: number }
  /** An HCI controller behind a TCP stream, H4 framing (Rootcanal, ser2net, `sim serve`). */
  | { kind: 'tcp'; host: string; port: number }
  /** An HCI controller behind a Unix socket, H4 framing (BlueZ's btvirt, `sim serve`). */
  | { kind: 'unix'; path: string }
  /** A USB HCI dongle claimed directly (bluetooth-hci-socket's USB transport). */
  | { kind: 'usb'; vendorId: number; productId: number }
  /** noble's OS binding (CoreBluetooth, WinRT): cannot see a refused write. */
  | { kind: 'native' };

export const ADAPTER_FORMS =
  '`sim`, `hci<N>`, `serial:<path>[@<baud>]`, `tcp:<host>:<port>`, `unix:<path>`, `usb:<vid>:<pid>` or `native`';

/** A spec that does not parse; the message says which part and what would do. */
export class AdapterSpecError extends Error {
  override name = 'AdapterSpecError';
}

const HEX16 = /^(?:0x)?([0-9a-f]{1,4})$/i;

function port(text: string, spec: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65_535)
    throw new AdapterSpecError(`${spec}: the port must be a whole number from 1 to 65535`);
  return Number(text);
}

function hex16(text: string, what: string, spec: string): number {
  const match = HEX16.exec(text);
  if (!match) throw new AdapterSpecError(`${spec}: the ${what} must be 1 to 4 hex digits`);
  return parseInt(match[1]!, 16);
}

function nonEmpty(text: string, what: string, spec: string): string {
  if (!text.trim()) throw new AdapterSpecError(`${spec}: the ${what} is empty`);
  return text;
}

/** Parses one spec; throws AdapterSpecError saying what is wrong in words. */
export function parseAdapterSpec(input: string): AdapterSpec {
  const text = input.trim();
  if (text === '') throw new AdapterSpecError(`the adapter is empty: use ${ADAPTER_FORMS}`);
  if (text === 'sim') return { kind: 'sim' };
  if (text === 'native') return { kind: 'native' };
  const hci = /^hci(\d+)$/.exec(text);
  if (hci) return { kind: 'hci', index: Number(hci[1]) };
  const colon = text.indexOf(':');
  const scheme = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  switch (scheme) {
    case 'serial': {
      const at = /^(.*)@(\d+)$/.exec(rest);
      const path = nonEmpty(at ? at[1]! : rest, 'serial port', text);
      const baud = at ? Number(at[2]) : DEFAULT_SERIAL_BAUD;
      if (baud < 1_200 || baud > 12_000_000)
        throw new AdapterSpecError(`${text}: the baud rate must be from 1200 to 12000000`);
      return { kind: 'serial', path, baud };
    }
    case 'tcp': {
      const split = rest.lastIndexOf(':');
      if (split < 0) throw new AdapterSpecError(`${text}: write tcp:<host>:<port>`);
      let host = nonEmpty(rest.slice(0, split), 'host', text);
      if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
      return { kind: 'tcp', host, port: port(rest.slice(split + 1), text) };
    }
    case 'unix':
      return { kind: 'unix', path: nonEmpty(rest, 'socket path', text) };
    case 'usb': {
      const parts = rest.split(':');
      if (parts.length !== 2) throw new AdapterSpecError(`${text}: write usb:<vid>:<pid> in hex`);
      return {
        kind: 'usb',
        vendorId: hex16(parts[0]!, 'vendor ID', text),
        productId: hex16(parts[1]!, 'product ID', text),
      };
    }
    default:
      throw new AdapterSpecError(`"${text}" is not an adapter: use ${ADAPTER_FORMS}`);
  }
}

/** The canonical text of a spec: what the stores keep and every surface shows. */
export function formatAdapterSpec(spec: AdapterSpec): string {
  switch (spec.kind) {
    case 'sim':
    case 'native':
      return spec.kind;
    case 'hci':
      return `hci${spec.index}`;
    case 'serial':
      return spec.baud === DEFAULT_SERIAL_BAUD
        ? `serial:${spec.path}`
        : `serial:${spec.path}@${spec.baud}`;
    case 'tcp':
      return `tcp:${spec.host.includes(':') ? `[${spec.host}]` : spec.host}:${spec.port}`;
    case 'unix':
      return `unix:${spec.path}`;
    case 'usb': {
      const hex = (n: number) => n.toString(16).padStart(4, '0');
      return `usb:${hex(spec.vendorId)}:${hex(spec.productId)}`;
    }
  }
}

/** A comma-separated list (`DEVICEBENCH_ADAPTER`); every item parsed, none empty. */
export function parseAdapterList(text: string): AdapterSpec[] {
  return text.split(',').map(parseAdapterSpec);
}

/** The spec in words for people: the adapter picker, errors, the CLI's banner. */
export function describeAdapter(spec: AdapterSpec): string {
  switch (spec.kind) {
    case 'sim':
      return 'the simulated bench';
    case 'native':
      return "the system's Bluetooth (noble's OS binding)";
    case 'hci':
      return `the Linux adapter hci${spec.index}`;
    case 'serial':
      return `the HCI controller on ${spec.path} at ${spec.baud} baud`;
    case 'tcp':
      return `the HCI controller at ${formatAdapterSpec(spec).slice(4)} (TCP)`;
    case 'unix':
      return `the HCI controller at ${spec.path} (Unix socket)`;
    case 'usb':
      return `the USB HCI dongle ${formatAdapterSpec(spec).slice(4)}`;
  }
}

/**
 * Whether the board's answer to a write reaches DeviceBench: every spec but `native` runs noble's
 * HCI stack behind the tap, which sees an ATT Error Response; noble's OS bindings report success
 * whatever the board said (docs/decisions.md, "Native bindings").
 */
export function confirmsWrites(spec: AdapterSpec): boolean {
  return spec.kind !== 'native';
}

/** A spec as text at a boundary (IPC, HTTP, files): checked, kept canonical. */
export const adapterSpecText = z.string().transform((text, ctx) => {
  try {
    return formatAdapterSpec(parseAdapterSpec(text));
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});
