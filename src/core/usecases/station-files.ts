// Where a station's data folder keeps its bench: the btsnoop traces and the simulated bench's
// files. The app's BLE process and the `devicebench` command both open these, so a board set up
// in one is the board the other finds (docs/architecture.md, "Processes").
import { join } from 'node:path';
import { SIM_BOARDS_DIR } from '../ble/sim/board-file';
import type { BenchSource } from '../ble/radio/open-station';

/**
 * Board files the simulated bench starts with, from resources/sim. The Zephyr Secure board
 * (zephyr-secure.json) is loaded by hand until the app's windows show the passkey prompt: on the
 * default bench an unattended batch would pair it without MITM and fail its verify
 * (docs/decisions.md, "Pairing as a phone does").
 */
const DEFAULT_SIM_FILES = [
  'nrf52-devkit.json',
  'esp32-devkit.json',
  'sensor-board.json',
  'starter-board.json',
  'zephyr-mcumgr.json',
];

/** The BLE process's btsnoop traces: `traces/` in the data folder (docs/decisions.md). */
export function traceDirOf(dataDir: string): string {
  return join(dataDir, 'traces');
}

/**
 * The simulated bench a data folder keeps: the start files, their flash (`sim-bench-state.json`)
 * and what the user did to it (`sim-bench-setup.json`). The BLE process and the `devicebench`
 * command both open this one.
 */
export function dataFolderBench(dataDir: string): BenchSource & { setupFile: string } {
  return {
    boardFiles: DEFAULT_SIM_FILES.map((f) => join(SIM_BOARDS_DIR, f)),
    stateFile: join(dataDir, 'sim-bench-state.json'),
    setupFile: join(dataDir, 'sim-bench-setup.json'),
  };
}
