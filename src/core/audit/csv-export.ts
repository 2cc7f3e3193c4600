// The audit log as CSV for a spreadsheet or a factory system: one header row, one row per
// record, times in ISO 8601 UTC.
import { stringify } from 'csv-stringify/sync';
import { describeRecordEvent, type ProvisioningRecord } from './records';

const COLUMNS: { header: string; value: (r: ProvisioningRecord) => string | number }[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'created_at', value: (r) => iso(r.createdAt) },
  { header: 'updated_at', value: (r) => iso(r.updatedAt) },
  { header: 'written_at', value: (r) => iso(r.writtenAt) },
  { header: 'verified_at', value: (r) => iso(r.verifiedAt) },
  { header: 'product_id', value: (r) => text(r.productId) },
  { header: 'product_name', value: (r) => text(r.productName) },
  { header: 'service_uuid', value: (r) => r.serviceUuid },
  { header: 'psdi_service_uuid', value: (r) => r.psdiServiceUuid },
  { header: 'psdi_characteristic_uuid', value: (r) => r.psdiCharacteristicUuid },
  { header: 'board_id', value: (r) => text(r.boardId) },
  { header: 'board_address', value: (r) => text(r.boardAddress) },
  { header: 'board_name', value: (r) => text(r.boardName ?? '') },
  { header: 'psdi', value: (r) => text(r.psdi) },
  { header: 'psdi_source', value: (r) => r.psdiSource },
  { header: 'psdi_held', value: (r) => (r.psdiHeld ? 'yes' : 'no') },
  { header: 'profile_id', value: (r) => r.profileId },
  { header: 'station', value: (r) => text(r.station) },
  { header: 'state', value: (r) => r.state },
  { header: 'result', value: (r) => r.result },
  { header: 'failed_step', value: (r) => r.failedStep ?? '' },
  { header: 'error', value: (r) => text(r.error ?? '') },
  { header: 'attempts', value: (r) => r.attempts },
  { header: 'psdi_returned', value: (r) => (r.psdiReturned ? 'yes' : 'no') },
  { header: 'history', value: (r) => text(r.history.map(describeRecordEvent).join(' | ')) },
];

export const csvHeader = COLUMNS.map((c) => c.header);

export function exportRecordsCsv(records: Iterable<ProvisioningRecord>): string {
  const rows: (string | number)[][] = [csvHeader];
  for (const record of records) rows.push(COLUMNS.map((c) => c.value(record)));
  return stringify(rows, { record_delimiter: '\r\n' });
}

function iso(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

/**
 * Free text (names, PSDIs, errors) that a spreadsheet would run as a formula gets a leading
 * apostrophe, the usual CSV-injection guard; everything else is exported as it is.
 */
function text(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
