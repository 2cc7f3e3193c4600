// Which identity an adapter uses, asked of its controller the way Zephyr's own host asks
// (docs/decisions.md, "One identity per dongle"): a public address when Read BD_ADDR gives one;
// else the controller's static address, asked with Zephyr's vendor commands only of a
// controller of HCI 5.0 or later (Read Version Information, then its Supported Commands, then
// Read Static Addresses where bit 8 says it is there); else one generated once and kept for the
// adapter. A random identity is set with LE Set Random Address before the host uses it.
import type { AdapterIdentity } from '../adapter-identity';
import type { IdentityKeeper } from '../adapter-identity-store';
import {
  HCI_CMD,
  HCI_ERROR,
  HCI_VERSION,
  ZEPHYR_VS_CMD,
  ZEPHYR_VS_READ_STATIC_ADDRESSES_BIT,
} from './codes';
import {
  NO_ADDRESS,
  addressOfBytes,
  bytesOfAddress,
  generateStaticAddress,
  isStaticAddress,
} from './own-address';

/** A command's answer: its status and the return parameters after it (none for Command Status). */
export interface CommandAnswer {
  status: number;
  params: Buffer;
}

/** Sends one command to the controller; undefined when no answer came in time. */
export type AskController = (op: number, params?: Uint8Array) => Promise<CommandAnswer | undefined>;

/** What the host learnt from the controller before asking: Read Local Version and Read BD_ADDR. */
export interface ControllerFacts {
  bdAddr: string;
  hciVersion?: number;
  manufacturer?: number;
}

/** Where a generated identity is kept, and under which key. */
export interface IdentityKeeping {
  keeper?: IdentityKeeper;
  key: string;
}

const succeeded = (answer: CommandAnswer | undefined): answer is CommandAnswer =>
  answer !== undefined && answer.status === HCI_ERROR.success;

/**
 * Zephyr's Read Static Addresses: Num_Addresses, then per address BD_ADDR (6) and IR (16). The
 * first one, when the controller says it has the command and the address is a static one.
 */
async function controllerStatic(
  facts: ControllerFacts,
  ask: AskController,
): Promise<string | undefined> {
  if ((facts.hciVersion ?? 0) < HCI_VERSION.v5_0) return undefined;
  if (!succeeded(await ask(ZEPHYR_VS_CMD.readVersionInfo))) return undefined;
  const commands = await ask(ZEPHYR_VS_CMD.readSupportedCommands);
  if (!succeeded(commands)) return undefined;
  const octet = commands.params[ZEPHYR_VS_READ_STATIC_ADDRESSES_BIT >> 3] ?? 0;
  if (!(octet & (1 << (ZEPHYR_VS_READ_STATIC_ADDRESSES_BIT & 7)))) return undefined;
  const statics = await ask(ZEPHYR_VS_CMD.readStaticAddresses);
  if (!succeeded(statics) || (statics.params[0] ?? 0) === 0 || statics.params.length < 7)
    return undefined;
  const address = addressOfBytes(statics.params.subarray(1, 7));
  return isStaticAddress(address) ? address : undefined;
}

/** The generated identity kept for this adapter, or a new one, kept where there is a keeper. */
async function generated(
  keeping: IdentityKeeping,
  generate: () => string,
): Promise<AdapterIdentity> {
  const kept = keeping.keeper?.kept(keeping.key);
  if (kept !== undefined && isStaticAddress(kept))
    return { address: kept, type: 'random', source: 'generatedKept' };
  const address = generate();
  if (keeping.keeper)
    try {
      const first = await keeping.keeper.keep(keeping.key, address);
      return { address: first, type: 'random', source: 'generatedKept' };
    } catch {
      // A data folder that cannot be written: the adapter still gets an identity, said as
      // this session's only.
    }
  return { address, type: 'random', source: 'generatedSession' };
}

/**
 * The adapter's identity, a random one set in the controller. A controller that refuses LE Set
 * Random Address is left on its public address, whatever it is.
 */
export async function settleIdentity(
  facts: ControllerFacts,
  ask: AskController,
  keeping: IdentityKeeping,
  generate: () => string = generateStaticAddress,
): Promise<AdapterIdentity> {
  const publicIdentity: AdapterIdentity = {
    address: facts.bdAddr,
    type: 'public',
    source: 'public',
  };
  if (facts.bdAddr !== NO_ADDRESS) return publicIdentity;
  const own = await controllerStatic(facts, ask);
  const identity: AdapterIdentity = own
    ? { address: own, type: 'random', source: 'controllerStatic' }
    : await generated(keeping, generate);
  const set = await ask(HCI_CMD.leSetRandomAddress, bytesOfAddress(identity.address));
  return succeeded(set) ? identity : publicIdentity;
}
