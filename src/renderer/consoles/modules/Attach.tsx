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
import { messagesFor } from '../../lib/errors';
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
    {
      redirectUri: 'https://module.example.com/callback',
      scope: '',
      code: '',
      managerBaseUrl: '',
    },
    approve.error ?? attach.error,
  );
  const botId = accountId || state?.bots[0]?.botId || '';
  const managerOrigin = originOf(fields.values.managerBaseUrl);
  // The app sends the channel's ID and secret to another origin only once the user said yes.
  const confirmation =
    managerOrigin && messagesFor(attach.error, 'managerBaseUrl').length > 0
      ? managerOrigin
      : undefined;
  const runAttach = (confirmManagerOrigin?: string) =>
    void attach.run(async () => {
      const answer = await api.modules.attach({
        moduleChannelId: moduleChannelId || undefined,
        via,
        code: fields.values.code,
        redirectUri: fields.values.redirectUri,
        ...(fields.values.scope && { scope: fields.values.scope }),
        ...(fields.values.managerBaseUrl.trim() && {
          managerBaseUrl: fields.values.managerBaseUrl.trim(),
        }),
        ...(confirmManagerOrigin && { confirmManagerOrigin }),
      });
      onAttached(answer.bot_id);
      onChange();
      return answer;
    });

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
        <TextField
          label="Manager URL (optional)"
          value={fields.values.managerBaseUrl}
          onChange={(value) => fields.set('managerBaseUrl', value)}
          placeholder="the environment's base URL"
        />
        <button
          type="button"
          className="primary"
          disabled={attach.busy || !fields.values.code}
          onClick={() => runAttach()}
        >
          Attach
        </button>
      </div>
      {confirmation && (
        <p role="alert" data-testid="attach-confirm">
          {confirmation} is not this channel&apos;s environment. Send the channel&apos;s ID and
          secret there?{' '}
          <button type="button" disabled={attach.busy} onClick={() => runAttach(confirmation)}>
            Send to {confirmation}
          </button>
        </p>
      )}
      <ErrorNotice
        error={confirmation ? undefined : attach.error}
        shownFields={fields.names}
        testId="attach-error"
      />
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

/** The origin of a URL as typed, or undefined while it is not one. */
function originOf(url: string): string | undefined {
  try {
    return url.trim() ? new URL(url.trim()).origin : undefined;
  } catch {
    return undefined;
  }
}
