// Console for notification messages by phone number (docs/platform-api.md#notifications): hash a
// number, send template and flexible messages to the hash, read the day's counts; on the emulator,
// seed the users behind phone numbers.
import { useState, type FormEvent } from 'react';
import type { DeliveryCount } from '../../../core/platform/notifications/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { useLoad } from '../../lib/use-load';
import { SelectField } from '../../components/SelectField';
import { PhoneUsers } from './PhoneUsers';
import { SendForm } from './SendForm';
import { LoadFailure } from '../../components/LoadFailure';

export function Notifications() {
  const state = useLoad((api) => api.notifications.emulatorState({}), []);
  const [to, setTo] = useState('');

  return (
    <div className="page">
      <header className="page-header">
        <h1>Notification messages</h1>
        <p className="muted">
          Messages to a user by hashed phone number, and the counts sent per day.
        </p>
      </header>
      <HashPhone onUse={setTo} />
      {state.error !== undefined && <LoadFailure error={state.error} onRetry={state.reload} />}
      {state.value && (
        <PhoneUsers
          users={state.value.users}
          targetCountries={state.value.targetCountries}
          onChange={state.reload}
        />
      )}
      <SendForm
        to={to}
        onTo={setTo}
        templates={state.value?.templates ?? []}
        onSent={state.reload}
      />
      <Counts key={state.value?.today ?? 'unknown'} today={state.value?.today} />
    </div>
  );
}

function HashPhone({ onUse }: { onUse: (hash: string) => void }) {
  const api = useApi();
  const hash = useAction<{ e164: string; hash: string }>();
  const fields = useFields({ phoneNumber: '', defaultCountry: 'JP' }, hash.error);
  async function submit(event: FormEvent) {
    event.preventDefault();
    await hash.run(async () => {
      const answer = await api.notifications.hashPhoneNumber({
        phoneNumber: fields.values.phoneNumber,
        ...(fields.values.defaultCountry && { defaultCountry: fields.values.defaultCountry }),
      });
      onUse(answer.hash);
      return answer;
    });
  }
  return (
    <Panel title="Hash a phone number">
      <form className="inline-form" onSubmit={submit} aria-label="Hash a phone number">
        <TextField
          label="Phone number"
          {...fields.bind('phoneNumber')}
          placeholder="+81 80-0000-1234"
          className="grow"
        />
        <TextField
          label="Country if no +"
          {...fields.bind('defaultCountry')}
          maxLength={2}
          className="number"
        />
        <button type="submit" disabled={hash.busy}>
          Normalize and hash
        </button>
      </form>
      <ErrorNotice error={hash.error} shownFields={fields.names} />
      {hash.value && (
        <dl className="facts" data-testid="phone-hash">
          <dt>E.164</dt>
          <dd className="mono">{hash.value.e164}</dd>
          <dt>SHA-256</dt>
          <dd>
            <CopyableId value={hash.value.hash} label="phone number hash" />
          </dd>
        </dl>
      )}
      <p className="note">The hash is filled in as the recipient below.</p>
    </Panel>
  );
}

function Counts({ today }: { today: string | undefined }) {
  const api = useApi();
  const count = useAction<DeliveryCount>();
  const [kind, setKind] = useState<'template' | 'flexible'>('template');
  const fields = useFields({ date: today ?? '' }, count.error);
  return (
    <Panel title="Messages sent per day">
      <form
        className="inline-form"
        aria-label="Count sent messages"
        onSubmit={(event) => {
          event.preventDefault();
          void count.run(() => api.notifications.count({ kind, date: fields.values.date }));
        }}
      >
        <SelectField
          label="Kind"
          value={kind}
          onChange={(v) => setKind(v as 'template' | 'flexible')}
          options={[
            { value: 'template', label: 'Template' },
            { value: 'flexible', label: 'Flexible' },
          ]}
        />
        <TextField
          label="Date (yyyyMMdd, UTC+9)"
          {...fields.bind('date')}
          placeholder="20240131"
          mono
        />
        <button type="submit" disabled={count.busy}>
          Get count
        </button>
      </form>
      <ErrorNotice error={count.error} shownFields={fields.names} />
      {count.value && (
        <p role="status" data-testid="pnp-count">
          Status <strong>{count.value.status}</strong>
          {count.value.success !== undefined && <> · {count.value.success} sent</>}
          {count.value.status === 'unready' && (
            <span className="muted"> — the day is not over yet; try again later.</span>
          )}
        </p>
      )}
    </Panel>
  );
}
