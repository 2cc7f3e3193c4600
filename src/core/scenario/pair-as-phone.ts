// A dry run's link paired as a phone does (docs/decisions/scenarios.md, "Pairing as a phone does
// in a dry run"): LE Secure Connections and MITM, bonding and the IO capability the station's,
// a bonded board encrypted with its bond, and the pairing and the Encryption Change said as
// timeline events.
import { failureWords, type BleConnection } from '../ble/port';
import type { Clock } from '../async/clock';
import type { TimelineEvent } from './schema';

/**
 * Pairs the link, or encrypts it with the station's bond with the board; a link already
 * encrypted (its bond, or a pairing the board asked for) is taken as it is. Emits `paired` (for a
 * pairing made here) and `encrypted`; resolves with why it failed, in words, or undefined once
 * the link is encrypted.
 */
export async function pairAsPhone(
  connection: BleConnection,
  startedAt: number,
  clock: Pick<Clock, 'now'>,
  emit: (event: TimelineEvent) => void,
): Promise<string | undefined> {
  if (!connection.requestLink) return 'this adapter cannot pair on request (no HCI access)';
  const before = connection.linkInfo?.();
  try {
    // Whether to bond is the station's policy (`--no-bond` on the CLI), not the dry run's.
    const link = before?.security?.encrypted
      ? before
      : // A phone asks for MITM and goes on with Just Works where the IO capabilities leave only
        // that: the board judges the key, and refuses what it needs more for.
        await connection.requestLink({ kind: 'pair', sc: true, mitm: true, requireMitm: false });
    const level = link.securityLevel;
    // A binding that reports only the level says no more than it.
    const security = link.security ?? {
      encrypted: level > 1,
      authenticated: level > 2,
      bonded: false,
    };
    if (!security.encrypted) return 'the link is not encrypted after the pairing';
    if (link !== before && !security.fromBond)
      emit({ kind: 'paired', at: clock.now(), startedAt, security });
    emit({ kind: 'encrypted', at: clock.now(), security });
    return undefined;
  } catch (err) {
    // The event's kind already says it was the pairing.
    return failureWords(err);
  }
}
