// Console for module channels (docs/platform-api.md#modules): act as a module channel to attach,
// detach, take and give back chat control and list attached bots, and watch the module events this
// app's receiver gets. On the emulator it also sets up channels, accounts and their friends.
import { useEffect, useState } from 'react';
import { MODULE_EVENT_TYPES } from '../../../core/platform/modules/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { ReceivedWebhooks } from '../../components/ReceivedWebhooks';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useLoad } from '../../lib/use-load';
import { useReceivedWebhooks } from '../../lib/use-webhooks';
import { Attach } from './Attach';
import { BotList } from './BotList';
import { ChatControl } from './ChatControl';
import { EmulatorSetup } from './EmulatorSetup';
import { SelectField } from '../../components/SelectField';
import { LoadFailure } from '../../components/LoadFailure';

const MODULE_TYPES: readonly string[] = MODULE_EVENT_TYPES;

export function Modules() {
  const api = useApi();
  const state = useLoad((api) => api.modules.emulatorState({}), []);
  const receiver = useReceivedWebhooks();
  const useReceiver = useAction();
  const [picked, setPicked] = useState('');
  const [botId, setBotId] = useState('');
  const moduleChannels = state.value?.moduleChannels ?? [];
  const moduleChannelId = picked || moduleChannels[0]?.channelId || '';
  const channel = moduleChannels.find((c) => c.channelId === moduleChannelId);

  // Module events change what the emulator holds; show it when one arrives.
  const { reload } = state;
  const newest = receiver.received[0]?.id;
  useEffect(() => {
    if (newest !== undefined) reload();
  }, [newest, reload]);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Module channels</h1>
        <p className="muted">
          Attach a module to an account, switch chat control, list bots, watch module events.
        </p>
      </header>
      {state.error !== undefined && <LoadFailure error={state.error} onRetry={state.reload} />}
      {state.value && <EmulatorSetup state={state.value} onChange={state.reload} />}
      <Panel title="Acting as">
        {state.value ? (
          <div className="inline-form">
            <SelectField
              label="Module channel"
              value={moduleChannelId}
              onChange={setPicked}
              options={moduleChannels.map((c) => ({
                value: c.channelId,
                label: `${c.name} (${c.channelId})`,
              }))}
              placeholder="Create a module channel first"
            />
            <span className="muted" data-testid="module-webhook-url">
              Webhook URL: {channel?.webhookUrl ?? 'not set'}
            </span>
            <button
              type="button"
              disabled={!moduleChannelId || useReceiver.busy}
              onClick={() =>
                void useReceiver.run(async () => {
                  await api.webhooks.useReceiver({ channelId: moduleChannelId });
                  state.reload();
                })
              }
            >
              Send to this app&apos;s receiver
            </button>
          </div>
        ) : (
          <p className="note">The active environment&apos;s channel is the module channel.</p>
        )}
        <ErrorNotice error={useReceiver.error} />
      </Panel>
      <Attach
        state={state.value}
        moduleChannelId={moduleChannelId}
        onAttached={setBotId}
        onChange={state.reload}
      />
      <ChatControl
        state={state.value}
        moduleChannelId={moduleChannelId}
        botId={
          botId ||
          state.value?.attachments.find(
            (a) => a.moduleChannelId === moduleChannelId && a.state === 'attached',
          )?.botId ||
          ''
        }
        onChange={state.reload}
      />
      <BotList moduleChannelId={moduleChannelId} />
      <Panel title="Module events received" testId="module-events">
        <ReceivedWebhooks
          received={receiver.received}
          filter={(w) => w.eventTypes.some((t) => MODULE_TYPES.includes(t))}
          emptyText="No module events yet. Point the module channel at this app's receiver, then attach."
        />
      </Panel>
    </div>
  );
}
