// The app's audit log opened for a command: `audit.sqlite` in the data folder, or the shared
// PostgreSQL log that the app's settings or `DEVICEBENCH_AUDIT_URL` name (docs/decisions.md,
// "Production line"), so the app sees what the command did and the other way round.
import { mkdirSync } from 'node:fs';
import { openAuditStore } from '../../audit/open-store';
import type { AuditStore } from '../../audit/store';
import { AuditSettings } from '../audit-settings';
import { NotConfiguredError, SetupError } from '../errors';

/**
 * Settings that do not resolve are refused as `audit`; a log that does not open is not
 * configured. A line station says when the shared log stops answering and when it is back.
 */
export async function openStationAudit(options: {
  dataDir: string;
  /** Recorded on audit records and dry runs; the settings' (the host name) when absent. */
  station?: string;
  onReachability?: (words: string) => void;
}): Promise<AuditStore> {
  mkdirSync(options.dataDir, { recursive: true });
  const { openKeychain } = await import('../../secrets/keychain');
  let resolved;
  try {
    const keychain = await openKeychain();
    resolved = await (await AuditSettings.open(options.dataDir, keychain.store)).resolve();
  } catch (err) {
    throw new SetupError('audit', (err as Error).message);
  }
  try {
    return await openAuditStore({
      location: resolved.location,
      station: options.station ?? resolved.station,
      onReachability: (words) => options.onReachability?.(words),
    });
  } catch (err) {
    throw new NotConfiguredError(`the audit log cannot be opened: ${(err as Error).message}`);
  }
}
