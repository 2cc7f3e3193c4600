// The emulator's users by phone number, with the states behind the four 422 answers.
import { useState, type FormEvent } from 'react';
import type { PhoneUser } from '../../../core/platform/notifications/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

export function PhoneUsers({
  users,
  targetCountries,
  onChange,
}: {
  users: PhoneUser[];
  targetCountries: string[];
  onChange: () => void;
}) {
  const api = useApi();
  const add = useAction();
  const fields = useFields({ phoneNumber: '', defaultCountry: 'JP' }, add.error);
  const [refused, setRefused] = useState(false);
  const [policyAgreed, setPolicyAgreed] = useState(true);
  async function submit(event: FormEvent) {
    event.preventDefault();
    await add.run(async () => {
      await api.notifications.addPhoneUser({
        phoneNumber: fields.values.phoneNumber,
        ...(fields.values.defaultCountry && { defaultCountry: fields.values.defaultCountry }),
        refused,
        policyAgreed,
      });
      onChange();
    });
  }
  return (
    <Panel title="Emulator: users by phone number">
      <form className="inline-form" onSubmit={submit} aria-label="Add phone user">
        <TextField label="User's phone number" {...fields.bind('phoneNumber')} className="grow" />
        <TextField
          label="Country"
          {...fields.bind('defaultCountry')}
          maxLength={2}
          className="number"
        />
        <div className="field checkbox">
          <input
            id="pnp-refused"
            type="checkbox"
            checked={refused}
            onChange={(e) => setRefused(e.target.checked)}
          />
          <label htmlFor="pnp-refused">Refused notifications</label>
        </div>
        <div className="field checkbox">
          <input
            id="pnp-policy"
            type="checkbox"
            checked={policyAgreed}
            onChange={(e) => setPolicyAgreed(e.target.checked)}
          />
          <label htmlFor="pnp-policy">Agreed to 2022 policy</label>
        </div>
        <button type="submit" disabled={add.busy}>
          Add user
        </button>
      </form>
      <ErrorNotice error={add.error} shownFields={fields.names} />
      <p className="note">Messages reach numbers issued in {targetCountries.join(' and ')}.</p>
      {users.length > 0 && (
        <table className="grid" aria-label="Phone users">
          <TableHead columns={['E.164', 'Country', 'Hash', 'Refused', 'Policy agreed']} />
          <tbody>
            {users.map((u) => (
              <tr key={u.hash}>
                <td className="mono">{u.e164}</td>
                <td>{u.country ?? '?'}</td>
                <td>
                  <CopyableId value={u.hash} label={`hash of ${u.e164}`} />
                </td>
                <td>{u.refused ? 'yes' : 'no'}</td>
                <td>{u.policyAgreed ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
