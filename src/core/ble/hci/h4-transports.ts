// The byte streams H4 runs over: a serial port (`serialport`, RTS/CTS at the given baud), a TCP
// or a Unix socket. Each opens into an H4Socket whose controller has answered an HCI Reset;
// every failure is an H4TransportError saying what to do about it (docs/decisions.md, "H4
// transports").
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AdapterSpec } from '../adapter-spec';
import { H4Socket, H4TransportError, type H4SocketOptions } from './h4-socket';
import { errorMessage } from '../../errors/message';

export type StreamSpec = Extract<AdapterSpec, { kind: 'serial' | 'tcp' | 'unix' }>;

export type H4OpenOptions = Omit<H4SocketOptions, 'label' | 'hint'>;

/** Where the stream goes, as errors name it. */
function streamLabel(spec: StreamSpec): string {
  switch (spec.kind) {
    case 'serial':
      return `${spec.path} at ${spec.baud} baud`;
    case 'tcp':
      return `${spec.host.includes(':') ? `[${spec.host}]` : spec.host}:${spec.port}`;
    case 'unix':
      return spec.path;
  }
}

const HINT: Record<StreamSpec['kind'], string> = {
  serial:
    'check the firmware (an HCI UART controller such as Zephyr hci_uart) and the baud rate; see the README, "Adapters and dongles"',
  tcp: 'check that the peer speaks H4 HCI (Rootcanal, ser2net to an HCI dongle, devicebench sim serve)',
  unix: 'check that the peer speaks H4 HCI (btvirt, devicebench sim serve)',
};

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A serial port's open failure in words, with what to do. */
function serialOpenError(path: string, err: unknown): H4TransportError {
  const message = errorMessage(err);
  const why = code(err);
  if (why === 'ENOENT' || /no such file/i.test(message))
    return new H4TransportError(
      `no serial port ${path}: plug the dongle in, or pick a port from the list of serial ports`,
    );
  if (why === 'EACCES' || /permission denied/i.test(message))
    return new H4TransportError(
      process.platform === 'linux'
        ? `no permission to open ${path}: add yourself to the dialout group (sudo usermod -aG dialout $USER), then log out and back in`
        : `no permission to open ${path}: allow this user to use the serial port`,
    );
  if (why === 'EBUSY' || /busy|lock|access denied/i.test(message))
    return new H4TransportError(
      `${path} is busy: another program has it open (a serial monitor, ModemManager, another DeviceBench); close it and try again`,
    );
  return new H4TransportError(`could not open ${path}: ${message}`);
}

/** A socket's connect failure in words, with what to do. */
function socketOpenError(spec: StreamSpec, err: unknown): H4TransportError {
  const where = streamLabel(spec);
  switch (code(err)) {
    case 'ECONNREFUSED':
    case 'ENOENT':
      return new H4TransportError(
        `nothing listens at ${where}: start the HCI controller there (e.g. devicebench sim serve --h4 ${spec.kind}:...)`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new H4TransportError(
        `no host ${spec.kind === 'tcp' ? spec.host : where}: check the name`,
      );
    case 'EACCES':
      return new H4TransportError(`no permission to connect to ${where}`);
    default:
      return new H4TransportError(`could not connect to ${where}: ${errorMessage(err)}`);
  }
}

async function openSerial(spec: Extract<StreamSpec, { kind: 'serial' }>): Promise<Duplex> {
  let SerialPort: typeof import('serialport').SerialPort;
  try {
    ({ SerialPort } = await import('serialport'));
  } catch (err) {
    throw new H4TransportError(`the serial port driver could not be loaded (${errorMessage(err)})`);
  }
  const port = new SerialPort({
    path: spec.path,
    baudRate: spec.baud,
    rtscts: true,
    autoOpen: false,
  });
  await new Promise<void>((resolve, reject) =>
    port.open((err) => (err ? reject(serialOpenError(spec.path, err)) : resolve())),
  );
  watchDeviceNode(port, spec.path);
  return port;
}

/** How often a serial port's device node is looked for while it is open. */
const UNPLUG_POLL_MS = 500;

/**
 * An unplugged USB serial device loses its device node (`/dev/ttyACM0`), but a read already
 * waiting on it is not always woken (seen with ptys), so the node's absence counts as the unplug.
 * Windows' COM ports have no node to look for; there the driver's read error is what tells.
 */
function watchDeviceNode(port: Duplex, path: string): void {
  if (!path.startsWith('/')) return;
  const timer = setInterval(() => {
    if (!existsSync(path)) port.destroy(new Error('the serial port disappeared (unplugged)'));
  }, UNPLUG_POLL_MS);
  timer.unref();
  port.once('close', () => clearInterval(timer));
}

function openSocket(spec: Extract<StreamSpec, { kind: 'tcp' | 'unix' }>): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket =
      spec.kind === 'tcp' ? connect({ host: spec.host, port: spec.port }) : connect(spec.path);
    const fail = (err: Error) => reject(socketOpenError(spec, err));
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      // Each HCI packet is small and waits on the last: no Nagle delay.
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** Opens the stream and resets the controller behind it; rejects with an H4TransportError. */
export async function openH4(spec: StreamSpec, options: H4OpenOptions = {}): Promise<H4Socket> {
  const stream = spec.kind === 'serial' ? await openSerial(spec) : await openSocket(spec);
  const socket = new H4Socket(stream, {
    ...options,
    label: streamLabel(spec),
    hint: HINT[spec.kind],
  });
  try {
    await socket.reset();
  } catch (err) {
    socket.stop();
    throw err;
  }
  return socket;
}
