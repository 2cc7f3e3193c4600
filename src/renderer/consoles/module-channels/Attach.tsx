// Attach: the account admin approves on the authorization URL (minted by the emulator), then
// the module channel exchanges the code at /module/auth/v1/token; and detach.
import { useState } from 'react';
import type { Authorization, ModuleState } from '../../../core/platform/modules/schema';
import { CopyableId, IdFact } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { SelectField } from '../../components/SelectField';

export function Attach({
  state,
  moduleChannelId,
  onAttached,
  onChange,
}: {
  state: ModuleState | undefined;
  moduleChannelId: string;
  onAttached: (botId: string) => void;
  onChange: () => void;
}) {
  const api = useApi();
  const approve = useAction<Authorization>();
  const attach = useAction<{ bot_id: string; scopes?: string[] }>();
  const detach = useAction();
  const [via, setVia] = useState<'basic' | 'form'>('basic');
  const [accountId, setAccountId] = useState('');
  const fields = useFields(
    { redirectUri: 'https://module.example.com/callback', scope: '', code: '' },
    approve.error ?? attach.error,
  );
  const botId = accountId || state?.bots[0]?.botId || '';

  return (
    <Panel title="Attach and detach">
      <div className="inline-form">
        {state && (
          <SelectField
            label="Account approving"
            value={botId}
            onChange={setAccountId}
            options={state.bots.map((b) => ({
              value: b.botId,
              label: `${b.displayName} (${b.basicId})`,
            }))}
            placeholder="Create an account first"
          />
        )}
        <TextField label="Redirect URI" {...fields.bind('redirectUri')} className="url" />
        <TextField
          label="Scope (optional)"
          {...fields.bind('scope')}
          placeholder="message:send message:receive"
        />
        {state && (
          <button
            type="button"
            disabled={approve.busy || !botId || !moduleChannelId}
            onClick={() =>
              void approve.run(async () => {
                const authorization = await api.modules.authorize({
                  moduleChannelId,
                  botId,
                  redirectUri: fields.values.redirectUri,
                  ...(fields.values.scope && { scope: fields.values.scope }),
                });
                fields.set('code', authorization.code);
                return authorization;
              })
            }
          >
            Approve as account admin
          </button>
        )}
      </div>
      <ErrorNotice error={approve.error} shownFields={fields.names} />
      {approve.value && (
        <dl className="facts">
          <IdFact
            term="Authorization URL"
            value={approve.value.authorizationUrl}
            label="authorization URL"
          />
        </dl>
      )}
      <div className="inline-form">
        <TextField label="Authorization code" {...fields.bind('code')} mono className="grow" />
        <SelectField
          label="Client authentication"
          value={via}
          onChange={(v) => setVia(v as 'basic' | 'form')}
          options={[
            { value: 'basic', label: 'Authorization: Basic' },
            { value: 'form', label: 'client_id / client_secret' },
          ]}
        />
        <button
          type="button"
          className="primary"
          disabled={attach.busy || !fields.values.code}
          onClick={() =>
            void attach.run(async () => {
              const answer = await api.modules.attach({
                moduleChannelId: moduleChannelId || undefined,
                via,
                code: fields.values.code,
                redirectUri: fields.values.redirectUri,
                ...(fields.values.scope && { scope: fields.values.scope }),
              });
              onAttached(answer.bot_id);
              onChange();
              return answer;
            })
          }
        >
          Attach
        </button>
      </div>
      <ErrorNotice error={attach.error} shownFields={fields.names} testId="attach-error" />
      {attach.value && (
        <p role="status" data-testid="attach-result">
          Attached: bot ID <CopyableId value={attach.value.bot_id} label="attached bot ID" /> with
          scopes {(attach.value.scopes ?? []).join(', ')}{' '}
          <button
            type="button"
            className="danger"
            disabled={detach.busy}
            onClick={() =>
              void detach.run(async () => {
                await api.modules.detach({
                  moduleChannelId: moduleChannelId || undefined,
                  botId: attach.value!.bot_id,
                });
                onChange();
              })
            }
          >
            Detach
          </button>
        </p>
      )}
      <ErrorNotice error={detach.error} />
    </Panel>
  );
}
