// Does a board still carry its PSDI? Read back in product mode and compared with the audit log's
// verified record for that board: the check `devicebench verify` reports.
import type { ProvisioningRecord } from '../../audit/records';
import type { AuditStore } from '../../audit/store';
import type { BleCentral } from '../../ble/port';
import { errorMessage } from '../../errors/message';
import { defaultTiming, type ProductTarget } from '../../provisioning/steps';
import { readBackPsdi } from '../../provisioning/verify';

export interface BoardCheck {
  /** What the board carries; null when it could not be read. */
  psdi: string | null;
  /** The log's latest verified record of the board, if any. */
  record: ProvisioningRecord | null;
  /** Why the board does not check out; undefined when it does. */
  problem: string | undefined;
}

export async function verifyBoard(options: {
  central: BleCentral;
  store: AuditStore;
  product: ProductTarget;
  address: string;
}): Promise<BoardCheck> {
  const { central, store, product, address } = options;
  const page = await store.search({
    productId: product.id,
    boardAddress: address,
    states: ['verified'],
    limit: 1,
  });
  const record = page.items[0] ?? null;
  let psdi: string | null = null;
  let problem: string | undefined;
  try {
    psdi = await readBackPsdi({
      central,
      board: { address },
      product,
      timeoutMs: defaultTiming.verify.timeoutMs,
      connectTimeoutMs: defaultTiming.connect.timeoutMs,
    });
  } catch (err) {
    problem = errorMessage(err);
  }
  if (!problem && !record)
    problem = `carries PSDI "${psdi}" but the audit log has no verified record of it`;
  if (!problem && record && record.psdi !== psdi)
    problem = `carries PSDI "${psdi}"; record #${record.id} says "${record.psdi}"`;
  return { psdi, record, problem };
}
