// Simulator of the client-side `$commonProfile` methods (docs/platform-api.md#common-profile): a
// stored profile, the confirmation modal, get / getDummy with formatOptions, and fill into a sample
// form, so a developer sees what their page receives before it runs inside the messaging client.
import { useRef, useState } from 'react';
import { DUMMY_CASES } from '../../../core/platform/common-profile/dummy-cases';
import {
  COMMON_PROFILE_SCOPES,
  scopeKey,
  type CommonProfile as Profile,
  type CommonProfileResult,
  type CommonProfileScope,
} from '../../../core/platform/common-profile/schema';
import { CommonProfileSimulator, fillForm } from '../../../core/platform/common-profile/simulator';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useAction } from '../../lib/use-action';
import { ConsentDialog } from './ConsentDialog';
import { SampleForm } from './SampleForm';
import { Checkbox } from '../../components/Checkbox';
import { SelectField } from '../../components/SelectField';

const NUMBER_KEYS = new Set(['bdayYear', 'bdayMonth', 'bdayDay']);
const INITIAL: Record<CommonProfileScope, string> = {
  'given-name': '花子🌸',
  'family-name': '山田',
  tel: '09012345678',
  'postal-code': '150-0002',
  'bday-year': '1990',
  'bday-month': '',
  'bday-day': '15',
};

/** Empty input: the user set no value (null). */
function toProfile(values: Record<CommonProfileScope, string>): Profile {
  const profile = {} as Record<string, string | number | null>;
  for (const scope of COMMON_PROFILE_SCOPES) {
    const key = scopeKey(scope);
    const raw = values[scope];
    profile[key] = raw === '' ? null : NUMBER_KEYS.has(key) ? Number(raw) : raw;
  }
  return profile as unknown as Profile;
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(value);
}

export function CommonProfile() {
  const [inClient, setInClient] = useState(true);
  const [pluginInstalled, setPluginInstalled] = useState(true);
  const [stored, setStored] = useState(INITIAL);
  const [scopes, setScopes] = useState<CommonProfileScope[]>([...COMMON_PROFILE_SCOPES]);
  const [excludeEmojis, setExcludeEmojis] = useState(true);
  const [excludeNonJp, setExcludeNonJp] = useState(true);
  const [digitsOnly, setDigitsOnly] = useState(true);
  const [caseId, setCaseId] = useState('1');
  const [consent, setConsent] = useState<{
    scopes: CommonProfileScope[];
    answer: (granted: CommonProfileScope[]) => void;
  }>();
  const call = useAction<{ requested: CommonProfileScope[]; result: CommonProfileResult }>();
  const form = useRef<HTMLFormElement>(null);

  const simulator = new CommonProfileSimulator({
    environment: { inClient, pluginInstalled },
    profile: toProfile(stored),
    confirm: (requested) =>
      new Promise((resolve) =>
        setConsent({
          scopes: requested,
          answer: (granted) => {
            setConsent(undefined);
            resolve(granted);
          },
        }),
      ),
  });
  const options = {
    formatOptions: {
      givenName: { excludeEmojis },
      familyName: { excludeEmojis },
      tel: { excludeNonJp },
      postalCode: { digitsOnly },
    },
  };
  const run = (dummy: boolean) =>
    void call.run(async () => ({
      requested: scopes,
      result: dummy
        ? await simulator.getDummy(scopes, options, Number(caseId))
        : await simulator.get(scopes, options),
    }));

  const answer = call.value;
  return (
    <div className="page">
      <header className="page-header">
        <h1>Common profile</h1>
        <p className="muted">
          Simulates <code>$commonProfile.get</code>, <code>getDummy</code> and <code>fill</code> of
          the embedded browser.
        </p>
      </header>
      <div className="columns">
        <Panel title="User's stored profile">
          <p className="note small">An empty field means the user set no value (null).</p>
          <div className="inline-form">
            {COMMON_PROFILE_SCOPES.map((scope) => (
              <TextField
                key={scope}
                label={`Stored ${scope}`}
                value={stored[scope]}
                onChange={(v) => setStored((prev) => ({ ...prev, [scope]: v }))}
              />
            ))}
          </div>
          <div className="button-row" role="group" aria-label="Environment">
            <Checkbox
              label="Inside the messaging client"
              checked={inClient}
              onChange={setInClient}
            />
            <Checkbox
              label="Plugin installed"
              checked={pluginInstalled}
              onChange={setPluginInstalled}
            />
          </div>
        </Panel>
        <Panel title="Call">
          <div className="button-row" role="group" aria-label="Requested scopes">
            {COMMON_PROFILE_SCOPES.map((s) => (
              <Checkbox
                key={s}
                label={`Request ${s}`}
                checked={scopes.includes(s)}
                onChange={(on) =>
                  setScopes((prev) => (on ? [...prev, s] : prev.filter((x) => x !== s)))
                }
              />
            ))}
          </div>
          <div className="button-row" role="group" aria-label="formatOptions">
            <Checkbox label="excludeEmojis" checked={excludeEmojis} onChange={setExcludeEmojis} />
            <Checkbox label="excludeNonJp" checked={excludeNonJp} onChange={setExcludeNonJp} />
            <Checkbox label="digitsOnly" checked={digitsOnly} onChange={setDigitsOnly} />
          </div>
          <div className="inline-form">
            <button type="button" className="primary" onClick={() => run(false)}>
              Call get
            </button>
            <SelectField
              label="Dummy case"
              value={caseId}
              options={DUMMY_CASES.map((c, i) => ({
                value: String(i + 1),
                label: `${i + 1}. ${c.title}`,
              }))}
              onChange={setCaseId}
            />
            <button type="button" onClick={() => run(true)}>
              Call getDummy
            </button>
          </div>
          <ErrorNotice error={call.error} testId="profile-error" />
        </Panel>
      </div>
      {answer && (
        <Panel
          title="Result"
          actions={
            <button
              type="button"
              onClick={() => form.current && fillForm(answer.result.data, form.current)}
            >
              Fill the sample form
            </button>
          }
        >
          <table className="grid" aria-label="Common profile result" data-testid="profile-result">
            <TableHead columns={['Scope', 'data', 'error']} />
            <tbody>
              {answer.requested.map((scope) => {
                const key = scopeKey(scope);
                const error = answer.result.error[key];
                return (
                  <tr key={scope} data-scope={scope}>
                    <td className="mono">{key}</td>
                    <td className="mono" data-testid={`data-${scope}`}>
                      {show(answer.result.data[key])}
                    </td>
                    <td>{error ? `${error.code}: ${error.message}` : ''}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Panel>
      )}
      <Panel title="Sample form">
        <SampleForm ref={form} />
      </Panel>
      {consent && <ConsentDialog scopes={consent.scopes} onAnswer={consent.answer} />}
    </div>
  );
}
