// Finding a board again by its address, and the read-back that proves a board carries its
// PSDI: scan until it advertises the product's serviceUuid, connect, read the PSDI
// characteristic under psdiServiceUuid, compare bytes.
import {
  normalizeUuid,
  type Advertisement,
  type BleCentral,
  type BleConnection,
} from '../ble/port';
import {
  delay,
  StepTimeoutError,
  withStepTimeout,
  type ProvisionTiming,
  type StepReporter,
} from './steps';
import { errorMessage } from '../errors/message';
import { refusalOf, type Refusal } from './faults';
import { FatalStepError, StepFailure } from './step-failures';
import { UNFOLLOWABLE, type BoardAddress } from './board-identity';
import { isResolvablePrivate } from '../ble/private-address';

/** Bluetooth addresses compare without case or separator differences. */
function sameAddress(a: string, b: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^0-9a-z]/g, '');
  return norm(a) === norm(b);
}

/**
 * The first advertisement from the board carrying any of `serviceUuids`, or undefined after
 * `timeoutMs`. The board may keep its id across a reboot or not; the address is what counts,
 * or the identity its bonded IRK resolves a new private address to. A record keeps a bonded
 * board's identity as its address, so an address alone also matches the identity an
 * advertisement resolves to.
 */
export async function findBoard(
  central: BleCentral,
  board: string | BoardAddress,
  serviceUuids: string[],
  timeoutMs: number,
  /** Each advertisement with the services that is not the board's. */
  onOther?: (ad: Advertisement) => void,
): Promise<Advertisement | undefined> {
  const { address, identityAddress = address } =
    typeof board === 'string' ? { address: board } : board;
  const isBoard = (ad: Advertisement) =>
    sameAddress(ad.address, address) ||
    (ad.identityAddress !== undefined && sameAddress(ad.identityAddress, identityAddress));
  let settle: (ad: Advertisement | undefined) => void = () => {};
  const found = new Promise<Advertisement | undefined>((resolve) => (settle = resolve));
  const scan = await central.startScan({ serviceUuids }, (ad) => {
    if (isBoard(ad)) settle(ad);
    else onOther?.(ad);
  });
  const timer = setTimeout(() => settle(undefined), timeoutMs);
  try {
    return await found;
  } finally {
    clearTimeout(timer);
    await scan.stop().catch(() => undefined);
  }
}

/**
 * A board with privacy and no bond: after its reboot it shows a new private address that
 * nothing here can resolve, so looking longer cannot find it (docs/decisions/ble-and-hci.md,
 * "Pairing as a phone does").
 */
class UnfollowableBoardError extends Error {
  override name = 'UnfollowableBoardError';
}

/** The board answers, but with another PSDI: retrying cannot change that. */
class PsdiMismatchError extends Error {
  override name = 'PsdiMismatchError';
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the board reads PSDI "${actual}", expected "${expected}"`);
  }
}

export interface ReadBackOptions {
  central: BleCentral;
  board: BoardAddress;
  product: { serviceUuid: string; psdiServiceUuid: string; psdiCharacteristicUuid: string };
  /** Scan, connect and read must all fit in this. */
  timeoutMs: number;
  connectTimeoutMs: number;
}

/**
 * Scans for the board in product mode and reads its PSDI (UTF-8); throws if it never shows up.
 * `onRead` runs once the disconnect is under way, so bookkeeping (a durable audit write) takes
 * place while the link closes instead of after it; what it throws is thrown from here.
 */
export async function readBackPsdi(
  options: ReadBackOptions & { onRead?: (psdi: string) => void | Promise<void> },
): Promise<string> {
  const deadline = performance.now() + options.timeoutMs;
  const remaining = () => Math.max(1, deadline - performance.now());
  // A board with privacy whose bond this station does not keep shows as one of these.
  let unresolved = 0;
  const ad = await findBoard(
    options.central,
    options.board,
    [options.product.serviceUuid],
    remaining(),
    (other) => {
      if (isResolvablePrivate(other.address) && !other.identityAddress) unresolved++;
    },
  );
  if (!ad) {
    const missing = `the board did not advertise the product's service ${options.product.serviceUuid} within ${options.timeoutMs} ms`;
    if (!options.board.identityAddress && isResolvablePrivate(options.board.address))
      throw new UnfollowableBoardError(`${missing}: ${UNFOLLOWABLE}`);
    if (unresolved)
      throw new Error(
        `${missing}; a board advertised it under a private address no bond on this station resolves: a board with privacy is found by its identity only with its bond kept here (bonds kept in memory are gone once DeviceBench closes)`,
      );
    throw new Error(missing);
  }
  let connection: BleConnection | undefined;
  let psdi: string;
  try {
    connection = await withStepTimeout(
      options.central.connect(ad.id, {
        timeoutMs: Math.min(options.connectTimeoutMs, remaining()),
      }),
      'verify',
      Math.min(options.connectTimeoutMs, remaining()),
    );
    const data = await withStepTimeout(
      connection.read(
        normalizeUuid(options.product.psdiServiceUuid),
        normalizeUuid(options.product.psdiCharacteristicUuid),
      ),
      'verify',
      remaining(),
    );
    psdi = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch (err) {
    await connection?.disconnect().catch(() => undefined);
    if (err instanceof StepTimeoutError || err instanceof TypeError) throw err;
    throw new Error(`reading the PSDI back failed: ${errorMessage(err)}`, { cause: err });
  }
  const closing = connection.disconnect().catch(() => undefined);
  try {
    await options.onRead?.(psdi);
  } finally {
    await closing;
  }
  return psdi;
}

/**
 * Read-back plus comparison: resolves when the board carries `psdi`. `onVerified` runs on a
 * match while the link closes (see `readBackPsdi`).
 */
async function verifyBoard(
  options: ReadBackOptions & { psdi: string; onVerified?: () => void | Promise<void> },
): Promise<void> {
  await readBackPsdi({
    ...options,
    onRead: async (actual) => {
      if (actual !== options.psdi) throw new PsdiMismatchError(options.psdi, actual);
      await options.onVerified?.();
    },
  });
}

/**
 * The verify step with its retries, the same for every kind of profile: read the PSDI back
 * until it matches. A mismatch or a refusal by rule ends it at once (`refused` words the
 * refusal for the profile); anything else is tried again up to `timing.verify.retries`.
 */
export async function verifyUntilMatch(options: {
  central: BleCentral;
  board: BoardAddress;
  product: ReadBackOptions['product'];
  timing: ProvisionTiming;
  reporter: StepReporter;
  psdi: string;
  onVerified: (attempt: number) => Promise<void>;
  refused: (attempt: number, refusal: Refusal, cause: unknown) => Error;
}): Promise<void> {
  const { timing } = options;
  const tries = timing.verify.retries + 1;
  for (let attempt = 1; ; attempt++) {
    try {
      await options.reporter.run(
        'verify',
        attempt,
        () =>
          verifyBoard({
            central: options.central,
            board: options.board,
            product: options.product,
            psdi: options.psdi,
            timeoutMs: timing.verify.timeoutMs,
            connectTimeoutMs: timing.connect.timeoutMs,
            onVerified: () => options.onVerified(attempt),
          }),
        (err) =>
          !(
            err instanceof PsdiMismatchError ||
            err instanceof UnfollowableBoardError ||
            err instanceof FatalStepError
          ) &&
          !refusalOf(err) &&
          attempt < tries,
      );
      return;
    } catch (err) {
      if (err instanceof FatalStepError) throw err;
      if (err instanceof PsdiMismatchError || err instanceof UnfollowableBoardError)
        throw new FatalStepError('verify', err.message, attempt);
      // A read-back the board refuses by rule is refused again on every try.
      const refusal = refusalOf(err);
      if (refusal) throw options.refused(attempt, refusal, err);
      if (attempt >= tries) throw new StepFailure('verify', attempt, false, err);
      await delay(timing.retryDelayMs * attempt);
    }
  }
}
