// A station's adapters opened for a command, as the app's BLE process opens them: the simulated
// bench as the app left it (its boards, faults and `sim-bench-state.json`) or the given board
// files alone, each adapter's one identity, the data folder's bonds when the station keeps them,
// and each adapter's HCI traffic written to the data folder's traces once the station scans or
// connects, so a command refused before it used the radio leaves the data folder as it was
// (docs/architecture.md, "Opening the radio"). noble and the keychain load only here, when a
// command gets this far, so a bad flag is answered at once.
import { mkdirSync } from 'node:fs';
import { z } from 'zod';
import { formatAdapterSpec, type AdapterSpec } from '../../ble/adapter-spec';
import type { Direction } from '../../ble/hci/btsnoop';
import { HCI_CMD } from '../../ble/hci/codes';
import type { SecurityPolicy } from '../../ble/hci/noble-smp';
import type { TraceWriter } from '../../ble/hci/trace-store';
import { listSerialPorts, type SerialPortInfo } from '../../ble/hci/serial-ports';
import { IO_CAPABILITY_NAMES } from '../../ble/link-parameters';
import { adapterTraceDir, type MultiCentral } from '../../ble/radio/multi-adapter-central';
import { NotConfiguredError } from '../errors';
import { dataFolderBench, traceDirOf } from '../station-files';
import { stationBonds } from './station-bonds';
import { readTraceSettings } from './trace-settings';
import type { BondStore } from '../../ble/security-manager/bond-store';
import { boardFlashKey } from '../../ble/security-manager/bond-key';

/** What the station claims it can show or type when it pairs. */
export const ioCapabilitySchema = z.enum(IO_CAPABILITY_NAMES);

export interface StationOptions {
  dataDir: string;
  /** The station's adapters, opened together (docs/decisions.md, "Several adapters at once"). */
  adapters: AdapterSpec[];
  /** Board files that replace the data folder's simulated bench and the app's set-up of it. */
  simBoards?: string[];
  /** How the station pairs, and whether it keeps the bonds; the unattended default without. */
  pairing?: { policy: Omit<SecurityPolicy, 'bonds'>; bond: boolean };
  /** An adapter's corrupt stream or reset, each said once. */
  onNotice?: (text: string) => void;
}

export interface OpenStation {
  central: MultiCentral;
  close(): Promise<void>;
}

/** No adapter of a hardware list is powered on; `states` says each one's state and why. */
export class NoUsableAdapterError extends NotConfiguredError {
  override name = 'NoUsableAdapterError';
  constructor(readonly states: string) {
    super(`no usable Bluetooth adapter (${states})`);
  }
}

/**
 * The serial ports an HCI dongle could be on, the likely ones first, each with the adapter spec
 * that opens it; a system that cannot list them is a SerialListError.
 */
export function serialPorts(): Promise<SerialPortInfo[]> {
  return listSerialPorts();
}

/** The adapter list as one text, as the audit log keeps it: `sim`, `sim,hci0`. */
export function adapterListText(adapters: AdapterSpec[]): string {
  return adapters.map(formatAdapterSpec).join(',');
}

export async function openStationAdapters(options: StationOptions): Promise<OpenStation> {
  const { openStation } = await import('../../ble/radio/open-station');
  const { TraceWriter } = await import('../../ble/hci/trace-store');
  const { AdapterIdentityFile } = await import('../../ble/adapter-identity-store');
  const { dataDir, simBoards, pairing } = options;
  const bonds = pairing?.bond ? await keptBonds(dataDir, options.onNotice) : undefined;
  const bench = {
    ...dataFolderBench(dataDir),
    flashKey: bonds && boardFlashKey(bonds.keySource),
  };
  const writers: TraceWriter[] = [];
  const { keepKeys } = await readTraceSettings(dataDir);
  const station = await openStation(options.adapters, {
    // A damaged store keeps no bond, so the station asks for none: a board must not keep a bond
    // the station does not have (docs/decisions/security-and-hardening.md).
    security:
      pairing && bonds?.storage.kind === 'damaged'
        ? { ...pairing.policy, options: { ...pairing.policy.options, bond: false } }
        : pairing?.policy,
    bonds,
    // The app's adapters and the command's keep one identity each (an adapter without an address).
    identities: await AdapterIdentityFile.open(dataDir).catch(() => undefined),
    bench: simBoards ? { ...bench, boardFiles: simBoards, setupFile: undefined } : bench,
    trace: (index, spec) => {
      let writer: TraceWriter | undefined;
      const before: [Direction, Uint8Array][] = [];
      return (direction: Direction, packet: Uint8Array) => {
        if (writer) return writer.record(direction, packet);
        before.push([direction, Uint8Array.from(packet)]);
        if (!usesRadio(direction, packet)) return;
        mkdirSync(dataDir, { recursive: true });
        const opened = new TraceWriter(
          adapterTraceDir(traceDirOf(dataDir), index, formatAdapterSpec(spec)),
          { keepKeys },
        );
        writer = opened;
        writers.push(opened);
        for (const [d, p] of before.splice(0)) opened.record(d, p);
      };
    },
  });
  const { central } = station;
  const close = async () => {
    await central.close().catch(() => undefined);
    station.bench?.close();
    for (const writer of writers) writer.close();
  };
  const said = new Set<string>();
  central.onAdaptersChange(() => {
    for (const view of central.adapters()) {
      if (view.state === 'noAdapter' || !view.reason || said.has(view.reason)) continue;
      said.add(view.reason);
      options.onNotice?.(`adapter ${view.spec}: ${view.reason}`);
    }
  });
  if (station.bench) return { central, close };
  const { settledState } = await import('../../ble/host/host-process');
  if ((await settledState(central)) !== 'poweredOn') {
    const states = central
      .adapters()
      .map((a) => `${a.spec}: ${a.state}${a.reason ? ` (${a.reason})` : ''}`)
      .join('; ');
    await close();
    throw new NoUsableAdapterError(states);
  }
  return { central, close };
}

/**
 * The data folder's bonds for a run that pairs, said once when they will not outlive it: in
 * memory for want of a key, or not kept at all beside a damaged file.
 */
async function keptBonds(
  dataDir: string,
  onNotice: ((text: string) => void) | undefined,
): Promise<BondStore> {
  const bonds = await stationBonds(dataDir);
  const { storage } = bonds;
  if (storage.kind === 'memory') onNotice?.(storage.reason);
  if (storage.kind === 'damaged')
    onNotice?.(
      `bonds are not being kept in this run: ${storage.file} is damaged (${storage.reason}); \`devicebench bonds reset\` sets it aside and starts a new one`,
    );
  return bonds;
}

/** LE Set Scan Enable (on) or LE Create Connection from the host: the station uses the radio. */
function usesRadio(direction: Direction, p: Uint8Array): boolean {
  if (direction !== 'sent' || p[0] !== 0x01) return false;
  const opcode = (p[1] ?? 0) | ((p[2] ?? 0) << 8);
  return (
    (opcode === HCI_CMD.leSetScanEnable && p[4] === 0x01) || opcode === HCI_CMD.leCreateConnection
  );
}
