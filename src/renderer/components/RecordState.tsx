// A provisioning record's state as a badge: verified is the only good end.
import type { AuditRecordView } from '../../core/app/contracts/audit';

const TONES: Record<AuditRecordView['state'], string> = {
  reserved: 'warn',
  written: 'warn',
  verified: 'good',
  failed: 'bad',
  released: '',
};

export function RecordState({ record }: { record: Pick<AuditRecordView, 'state'> }) {
  return <span className={`badge ${TONES[record.state]}`}>{record.state}</span>;
}
