// The HCI traffic of a time window as one btsnoop file Wireshark opens, from the traces every
// BLE session (the app's or the command line's) writes to the data folder: all adapters' for the
// command line, one adapter's for the app's "HCI trace" (docs/decisions.md, "HCI traces"). Link
// keys are redacted unless the user keeps them (docs/decisions/ble-and-hci.md, "Keys in traces").
import { extractTrace, type ExtractedTrace } from '../../ble/hci/trace-store';
import type { TraceWindow } from '../../ble/hci/trace-window';
import { adapterLabel, adapterTraceDir } from '../../ble/radio/multi-adapter-central';
import { SetupError } from '../errors';
import { traceDirOf } from '../station-files';

/** The btsnoop file; `packets` is 0 when nothing crossed the HCI in the window. */
export type StationTrace = ExtractedTrace;

/** Whether the link keys stay in the file as they were recorded; default: redacted. */
interface KeyChoice {
  keepKeys?: boolean;
}

/** Every adapter's traffic in the window. */
export function stationTrace(
  dataDir: string,
  window: TraceWindow,
  choice: KeyChoice = {},
): StationTrace {
  return extractTrace(traceDirOf(dataDir), window, choice);
}

/**
 * One adapter's traffic in the window (the station's first unless `adapter` says), named for
 * the window's label and start, and for the adapter once there are several, so two traces of
 * one window differ. An adapter the station lacks is refused at `adapter`.
 */
export function adapterTrace(
  dataDir: string,
  adapters: string[],
  request: TraceWindow & { label?: string; adapter?: number } & KeyChoice,
): StationTrace & { fileName: string } {
  const { from, to, label, adapter = 0, keepKeys } = request;
  const spec = adapters[adapter];
  if (spec === undefined)
    throw new SetupError('adapter', `the station has no adapter ${adapter + 1}`);
  const trace = extractTrace(
    adapterTraceDir(traceDirOf(dataDir), adapter, spec),
    { from, to },
    { keepKeys },
  );
  const stamp = new Date(from).toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const which = adapters.length > 1 ? `-${adapterLabel(adapter, spec)}` : '';
  return { ...trace, fileName: `devicebench-hci-${label ?? 'window'}${which}-${stamp}.btsnoop` };
}
