// Where a station's data folder keeps its bench: the btsnoop traces and the simulated bench's
// files. The app's BLE process and the `devicebench` command both open these, so a board set up
// in one is the board the other finds (docs/architecture.md, "Processes").
import { join } from 'node:path';
import { SIM_BOARDS_DIR } from '../ble/sim/board-file';
import type { BenchSource } from '../ble/radio/open-station';

/**
 * Board files the simulated bench starts with, from resources/sim. The Zephyr Secure board
 * guards its provisioning service at level 4, so an unattended batch stops at it before a PSDI
 * is reserved, and a profile that asks for level 4 pairs it with the passkey prompt
 * (docs/decisions.md, "Pairing as a phone does").
 */
const DEFAULT_SIM_FILES = [
  'nrf52-devkit.json',
  'esp32-devkit.json',
  'sensor-board.json',
  'starter-board.json',
  'zephyr-mcumgr.json',
  'zephyr-secure.json',
];

/** The BLE process's btsnoop traces: `traces/` in the data folder (docs/decisions.md). */
export function traceDirOf(dataDir: string): string {
  return join(dataDir, 'traces');
}

/**
 * The simulated bench a data folder keeps: the start files, their flash (`sim-bench-state.json`),
 * what the user did to it (`sim-bench-setup.json`) and the controller its adapters emulate
 * (`sim-adapter.json`, which the user writes). The BLE process, the `devicebench` command and
 * `devicebench sim serve` all open this one.
 */
export function dataFolderBench(
  dataDir: string,
): BenchSource & { setupFile: string; adapterFile: string } {
  return {
    boardFiles: DEFAULT_SIM_FILES.map((f) => join(SIM_BOARDS_DIR, f)),
    stateFile: join(dataDir, 'sim-bench-state.json'),
    setupFile: join(dataDir, 'sim-bench-setup.json'),
    adapterFile: join(dataDir, 'sim-adapter.json'),
  };
}
