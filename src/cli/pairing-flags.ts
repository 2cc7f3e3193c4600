// How the command line pairs (`--io-capability`, `--passkey`, `--passkey-env`, `--bond`), as
// the station's Security Manager takes it: a CI job gives the board's passkey by flag or from a
// variable, and the passkey the station shows is printed for whoever types it on the board
// (docs/decisions.md, "Pairing as a phone does").
import { z } from 'zod';
import type { SecurityPolicy } from '../core/ble/hci/noble-smp';
import { ioCapabilitySchema } from '../core/usecases/bench/station';
import { UsageError } from './exit';

export interface PairingFlags {
  io: z.output<typeof ioCapabilitySchema>;
  bond: boolean;
  /** The board's passkey, when the station has to type one. */
  passkey?: number;
}

const passkeySchema = z
  .string()
  .regex(/^\d{6}$/, 'must be six digits, e.g. 123456')
  .transform(Number);

/** The pairing flags as yargs parsed them; a bad one is bad usage naming the flag or variable. */
export function pairingFlags(
  argv: Record<string, unknown>,
  environ: NodeJS.ProcessEnv = process.env,
): PairingFlags {
  const direct = argv.passkey as string | undefined;
  const variable = argv.passkeyEnv as string | undefined;
  // A station given the board's passkey has a keyboard to type it with: KeyboardOnly, unless
  // --io-capability says otherwise (docs/decisions/ble-and-hci.md, "Pairing as a phone does").
  const typed = direct !== undefined || variable !== undefined;
  const io = ioCapabilitySchema.safeParse(
    argv.ioCapability ?? (typed ? 'keyboardOnly' : 'noInputNoOutput'),
  );
  if (!io.success)
    throw new UsageError(
      '--io-capability',
      `must be one of ${ioCapabilitySchema.options.join(', ')}`,
    );
  const bond = argv.bond !== false;
  if (direct !== undefined && variable !== undefined)
    throw new UsageError('--passkey', 'give the passkey or --passkey-env, not both');
  if (direct !== undefined)
    return { io: io.data, bond, passkey: parsePasskey('--passkey', direct) };
  if (variable !== undefined) {
    const value = environ[variable];
    if (value === undefined) throw new UsageError('--passkey-env', `${variable} is not set`);
    return { io: io.data, bond, passkey: parsePasskey(variable, value) };
  }
  return { io: io.data, bond };
}

function parsePasskey(field: string, text: string): number {
  const parsed = passkeySchema.safeParse(text.trim());
  if (!parsed.success) throw new UsageError(field, 'must be six digits, e.g. 123456');
  return parsed.data;
}

/**
 * The Security Manager's policy for a command: MITM asked whenever the station claims some
 * input or output, Secure Connections offered. Nobody answers a numeric comparison on the
 * command line: the six digits are printed and accepted, which proves nothing against a MITM —
 * give the passkey for that (`--io-capability keyboardOnly --passkey …`).
 */
export function pairingPolicy(
  flags: PairingFlags,
  say: (line: string) => void,
): Omit<SecurityPolicy, 'bonds'> {
  return {
    // MITM asked, not needed: a board whose IO capabilities leave Just Works pairs so and judges
    // the key itself; a profile's level or a characteristic that needs more is what the station
    // needs (docs/decisions/ble-and-hci.md, "Pairing as the capabilities allow").
    options: {
      io: flags.io,
      bond: flags.bond,
      mitm: flags.io !== 'noInputNoOutput',
      requireMitm: false,
      sc: true,
    },
    user: {
      displayPasskey: (passkey) =>
        say(`pairing: type ${String(passkey).padStart(6, '0')} on the board`),
      enterPasskey: () =>
        flags.passkey === undefined
          ? Promise.reject(
              new Error('the board shows a passkey: give it with --passkey or --passkey-env'),
            )
          : Promise.resolve(flags.passkey),
      confirmNumber: (value) => {
        say(
          `pairing: numeric comparison ${String(value).padStart(6, '0')} accepted (no one to ask)`,
        );
        return Promise.resolve(true);
      },
    },
  };
}
