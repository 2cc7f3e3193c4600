// What gets written: the trial product, the provisioning profile its firmware speaks, and how
// PSDIs are made (a numbered sequence, random, or a list from a CSV file).
import { useId, useState } from 'react';
import type { z } from 'zod';
import type { provisioningProfileViewSchema } from '../../../core/app/contracts/provisioning';
import type { TrialProduct } from '../../../core/platform/things/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { shownUuid } from '../../lib/format';
import { useAction } from '../../lib/use-action';
import type { Resource } from '../../lib/use-resource';
import { Checkbox } from '../../components/Checkbox';
import { FileButton } from '../../components/FileButton';
import { sequencePreview, STRATEGY_LABELS, type PlanDraft, type Strategy } from './plan-draft';
import type { Plan } from './use-plan';

export type ProfileView = z.infer<typeof provisioningProfileViewSchema>;

const FIELDS = [
  'profileId',
  'psdi.kind',
  'psdi.prefix',
  'psdi.start',
  'psdi.width',
  'psdi.alphabet',
  'psdi.length',
  'psdi.csv',
  'psdi.column',
  'psdi.header',
];

interface PlanFormProps {
  products: readonly TrialProduct[];
  product: TrialProduct;
  onSelectProduct: (productId: string) => void;
  profiles: Resource<ProfileView[]>;
  plan: Plan;
}

export function PlanForm({ products, product, onSelectProduct, profiles, plan }: PlanFormProps) {
  const api = useApi();
  const id = useId();
  const loadProfile = useAction<ProfileView>();
  const [csvError, setCsvError] = useState<unknown>();
  const { draft } = plan;
  const error = plan.saveError;
  const bind = (name: Exclude<keyof PlanDraft, 'header'>, field: string) => ({
    value: draft[name],
    onChange: (value: string) => plan.edit({ [name]: value }),
    messages: messagesFor(error, field),
  });
  const preview = draft.kind === 'sequence' ? sequencePreview(draft) : undefined;
  const profile = profiles.value?.find((p) => p.id === draft.profileId);

  return (
    <Panel
      title="Product and PSDI plan"
      testId="prov-plan"
      actions={
        <span className="muted" data-testid="plan-state" role="status">
          {plan.loading
            ? 'Loading plan…'
            : plan.dirty
              ? 'Unsaved changes'
              : plan.exists
                ? 'Plan saved'
                : 'No plan saved yet: provisioning saves this one'}
        </span>
      }
    >
      <div className="inline-form">
        <div className="field">
          <label htmlFor={`${id}-product`}>Product</label>
          <select
            id={`${id}-product`}
            value={product.id}
            onChange={(event) => onSelectProduct(event.target.value)}
          >
            {products.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-profile`}>Provisioning profile</label>
          <select
            id={`${id}-profile`}
            value={draft.profileId}
            aria-invalid={messagesFor(error, 'profileId').length > 0 || undefined}
            onChange={(event) => plan.edit({ profileId: event.target.value })}
          >
            {!profile && <option value={draft.profileId}>{draft.profileId || 'Choose…'}</option>}
            {profiles.value?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
        <FileButton
          label="Load profile…"
          inputLabel="Profile file"
          accept=".json,application/json"
          testId="profile-file"
          disabled={loadProfile.busy}
          onFile={(file) =>
            void loadProfile.run(async () => {
              const loaded = await api.provisioning.loadProfile(file);
              profiles.reload();
              plan.edit({ profileId: loaded.id });
              return loaded;
            })
          }
          onError={(e) => void loadProfile.run(() => Promise.reject(e))}
        />
        <ErrorNotice error={loadProfile.error} testId="profile-file-error" />
      </div>
      {profile && (
        <p className="hint">
          {profile.description ?? profile.name} · service <code>{shownUuid(profile.service)}</code>{' '}
          · PSDI from {profile.psdiSource === 'device' ? 'the board itself' : 'this tool'}
        </p>
      )}
      <p className="hint">
        Writes service <code>{shownUuid(product.serviceUuid)}</code>, PSDI service{' '}
        <code>{shownUuid(product.psdiServiceUuid)}</code> and characteristic{' '}
        <code>{shownUuid(product.psdiCharacteristicUuid)}</code>.
      </p>

      <fieldset className="prov-strategy" disabled={profile?.psdiSource === 'device'}>
        <legend>PSDI</legend>
        {profile?.psdiSource === 'device' && (
          <p className="hint">This profile’s boards make their own PSDI; the plan is not used.</p>
        )}
        <div className="button-row" role="radiogroup" aria-label="PSDI strategy">
          {(Object.keys(STRATEGY_LABELS) as Strategy[]).map((kind) => (
            <label key={kind} className="prov-radio">
              <input
                type="radio"
                name={`${id}-kind`}
                checked={draft.kind === kind}
                onChange={() => plan.edit({ kind })}
              />
              {STRATEGY_LABELS[kind]}
            </label>
          ))}
        </div>
        <div className="inline-form">
          {draft.kind === 'sequence' && (
            <>
              <TextField label="Prefix" {...bind('prefix', 'psdi.prefix')} maxLength={32} mono />
              <TextField
                label="Start"
                className="number"
                inputMode="numeric"
                {...bind('start', 'psdi.start')}
              />
              <TextField
                label="Digits"
                className="number"
                inputMode="numeric"
                {...bind('width', 'psdi.width')}
              />
              {plan.nextPsdi ? (
                <span className="muted" data-testid="psdi-preview">
                  Next <code>{plan.nextPsdi}</code>
                </span>
              ) : (
                preview && (
                  <span className="muted" data-testid="psdi-preview">
                    From <code>{preview}</code>
                  </span>
                )
              )}
            </>
          )}
          {draft.kind === 'random' && (
            <>
              <TextField label="Prefix" {...bind('prefix', 'psdi.prefix')} maxLength={32} mono />
              <TextField
                label="Alphabet"
                className="grow"
                {...bind('alphabet', 'psdi.alphabet')}
                mono
              />
              <TextField
                label="Length"
                className="number"
                inputMode="numeric"
                {...bind('length', 'psdi.length')}
              />
            </>
          )}
          {draft.kind === 'list' && (
            <>
              <FileButton
                label="Load CSV…"
                inputLabel="PSDI list CSV file"
                accept=".csv,text/csv,text/plain"
                testId="psdi-csv-file"
                onFile={(file) => {
                  setCsvError(undefined);
                  plan.edit({ csv: file.text, csvFileName: file.fileName });
                }}
                onError={setCsvError}
              />
              <span className="muted" data-testid="psdi-csv">
                {draft.csv
                  ? `${draft.csvFileName}: ${draft.csv.split(/\r?\n/).filter((l) => l.trim()).length} lines`
                  : 'No list loaded'}
              </span>
              <TextField
                label="Column (optional)"
                {...bind('column', 'psdi.column')}
                hint="Header of the PSDI column; the first column if empty"
              />
              <Checkbox
                label="First row is a header"
                checked={draft.header || draft.column.trim() !== ''}
                disabled={draft.column.trim() !== ''}
                onChange={(header) => plan.edit({ header })}
              />
              <ErrorNotice error={csvError} />
              {['psdi.csv', 'psdi.header'].flatMap((field) =>
                messagesFor(error, field).map((m) => (
                  <div key={field + m} className="field-error">
                    {m}
                  </div>
                )),
              )}
              {plan.skipped.length > 0 && (
                <ul className="problems warnings" data-testid="psdi-csv-skipped">
                  {plan.skipped.map((p) => (
                    <li key={p.line}>
                      Line {p.line}: {p.message}, left out
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </div>
      </fieldset>
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={plan.saving || (plan.exists && !plan.dirty)}
          onClick={() => void plan.ensureSaved()}
        >
          {plan.saving ? 'Saving…' : 'Save plan'}
        </button>
        <button type="button" disabled={!plan.dirty} onClick={plan.discard}>
          Discard changes
        </button>
      </div>
      <ErrorNotice error={plan.loadError} />
      <ErrorNotice error={error} shownFields={FIELDS} testId="plan-error" />
    </Panel>
  );
}
