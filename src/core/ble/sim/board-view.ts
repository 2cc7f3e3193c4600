// What the bench shows of a simulated board (the app's board list and the BLE process's events):
// its advertising, connection, GATT table with the board file's names, buttons, provisioning
// state, faults and bond table.
import { formatUuid } from '../port';
import type { BoardDefinition } from './board-file';
import type { ProvisioningView } from './board-provisioning';
import type { BoardFaults } from './board-schema';
import type { Service } from './board-service';

export interface BoardView {
  id: string;
  address: string;
  name: string;
  source: string;
  advertising: {
    localName: string;
    /** Dashed form. */
    serviceUuids: string[];
    manufacturerData?: string;
    txPower?: number;
    intervalMs: number;
    rssiMean: number;
    /** False while connected or rebooting: a single-link peripheral stops advertising. */
    active: boolean;
  };
  connected: boolean;
  mtu: number;
  /** Dashed service UUIDs of the current GATT table. */
  services: string[];
  /** The board file's names of its services and characteristics, by noble-form UUID. */
  names: Record<string, string>;
  /** Each characteristic's longest value, by noble-form UUID: what a 0x0d refusal is measured by. */
  maxLengths: Record<string, number>;
  buttons: string[];
  provisioning?: ProvisioningView;
  faults: BoardFaults;
  /** The board's bond table: each central by the address it bonded from, and its identity. */
  bonds: BondView[];
}

/** One central the board keeps keys for; `identity` when the central handed out its own. */
interface BondView {
  central: string;
  identity?: { address: string; type: 'public' | 'random' };
}

/** The board's state now, beside its definition. */
export interface BoardState {
  advertisement: { localName: string; serviceUuids: string[] };
  advertising: boolean;
  connected: boolean;
  table: readonly Service[];
  provisioning: ProvisioningView | undefined;
  faults: BoardFaults;
  bonds: BondView[];
}

export function boardView(def: BoardDefinition, state: BoardState): BoardView {
  const { table } = state;
  return {
    id: def.id,
    address: def.address,
    name: def.name,
    source: def.source,
    advertising: {
      localName: state.advertisement.localName,
      serviceUuids: state.advertisement.serviceUuids.map(formatUuid),
      manufacturerData: def.advertising.manufacturerData,
      txPower: def.advertising.txPower,
      intervalMs: def.advertising.intervalMs,
      rssiMean: def.advertising.rssi.mean,
      active: state.advertising,
    },
    connected: state.connected,
    mtu: def.mtu,
    services: table.map((s) => formatUuid(s.uuid)),
    names: Object.fromEntries(
      table.flatMap((s) =>
        [s, ...s.characteristics].flatMap((a) => (a.name ? [[a.uuid, a.name]] : [])),
      ),
    ),
    maxLengths: Object.fromEntries(
      table.flatMap((s) => s.characteristics.map((c) => [c.uuid, c.maxLength])),
    ),
    buttons: def.buttons.map((b) => b.id),
    provisioning: state.provisioning,
    faults: state.faults,
    bonds: state.bonds,
  };
}
