// Small pieces the commands share: the global flags as yargs parsed them, Bluetooth addresses,
// and waiting that a Ctrl-C cuts short.
import { z } from 'zod';
import type { GlobalFlags } from '../command';
import { UsageError } from '../exit';
import { pairingFlags } from '../pairing-flags';
import { parseAdapterList, parseAdapterSpec, type AdapterSpec } from '../../core/ble/adapter-spec';
import { errorMessage } from '../../core/errors/message';

export function globalFlags(argv: Record<string, unknown>): GlobalFlags {
  return {
    adapters: adapterFlags(argv.adapter as string[] | undefined, process.env.DEVICEBENCH_ADAPTER),
    simBoards: argv.simBoards as string[] | undefined,
    env: argv.env as string | undefined,
    dataDir: argv.dataDir as string,
    station: argv.station as string | undefined,
    pairing: pairingFlags(argv),
  };
}

/**
 * The station's adapters: every `--adapter`, else DEVICEBENCH_ADAPTER (comma-separated), else
 * the simulated bench. A spec that does not parse is bad usage naming where it came from.
 */
function adapterFlags(flags: string[] | undefined, env: string | undefined): AdapterSpec[] {
  try {
    if (flags?.length) return flags.map((text) => parseAdapterSpec(text));
  } catch (err) {
    throw new UsageError('--adapter', errorMessage(err));
  }
  if (env === undefined) return [{ kind: 'sim' }];
  try {
    return parseAdapterList(env);
  } catch (err) {
    throw new UsageError('DEVICEBENCH_ADAPTER', errorMessage(err));
  }
}

/**
 * A value given positionally or by its flag (`firmware upload FILE` or `--image FILE`, as
 * `mcumgr image upload FILE` takes it): either, or both when they agree; both and different is
 * bad usage naming both.
 */
export function positionalOrFlag(
  names: { positional: string; flag: string },
  positional: unknown,
  flagged: unknown,
): unknown {
  if (positional === undefined) return flagged;
  if (flagged !== undefined && String(flagged) !== String(positional))
    throw new UsageError(
      names.flag,
      `${names.positional} and ${names.flag} name different values (${String(positional)}, ${String(flagged)}): give one`,
    );
  return positional;
}

/** A board's Bluetooth address, `c4:7f:51:00:00:01` (either case, `:` or `-`). */
export const addressSchema = z
  .string()
  .regex(
    /^(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/,
    'must be a Bluetooth address, e.g. c4:7f:51:00:00:01',
  )
  .transform((a) => a.toLowerCase().replace(/-/g, ':'));

/** Resolves after `ms`, or at once when interrupted. */
export function untilAborted(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
