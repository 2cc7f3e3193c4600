// Console for the partner messaging options of docs/platform-api.md#mission-stickers: mission
// stickers (send a set, and on the emulator the sets, permissions and regions deciding the answer)
// and the old mark-as-read.
import type { FormEvent } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { useLoad } from '../../lib/use-load';
import { StickerSets } from './StickerSets';
import { LoadFailure } from '../../components/LoadFailure';

export function MissionStickers() {
  const state = useLoad((api) => api.missionStickers.emulatorState({}), []);
  const users = (state.value?.users ?? []).map((u) => ({ value: u.userId, label: u.displayName }));

  return (
    <div className="page">
      <header className="page-header">
        <h1>Mission stickers</h1>
        <p className="muted">
          Give a sticker set to a user who completed a mission; mark a user’s messages read.
        </p>
      </header>
      {state.error !== undefined && <LoadFailure error={state.error} onRetry={state.reload} />}
      <SendSet
        users={users}
        sets={(state.value?.sets ?? []).map((s) => ({ value: s.productId, label: s.name }))}
        onSent={state.reload}
      />
      {state.value && <StickerSets state={state.value} onChange={state.reload} />}
      <MarkAsRead users={users} />
    </div>
  );
}

type Suggestions = { value: string; label: string }[];

function SendSet({
  users,
  sets,
  onSent,
}: {
  users: Suggestions;
  sets: Suggestions;
  onSent: () => void;
}) {
  const api = useApi();
  const send = useAction<string>();
  const fields = useFields({ to: '', productId: '' }, send.error);
  async function submit(event: FormEvent) {
    event.preventDefault();
    await send.run(async () => {
      await api.missionStickers.send(fields.values);
      onSent();
      return `Sticker set ${fields.values.productId} sent.`;
    });
  }
  return (
    <Panel title="Send a mission sticker set">
      <form className="inline-form" onSubmit={submit} aria-label="Send mission sticker set">
        <TextField
          label="To (user ID)"
          {...fields.bind('to')}
          suggestions={users}
          mono
          className="grow"
        />
        <TextField
          label="Sticker package ID"
          {...fields.bind('productId')}
          suggestions={sets}
          mono
        />
        <button type="submit" className="primary" disabled={send.busy}>
          Send set
        </button>
      </form>
      <ErrorNotice error={send.error} shownFields={fields.names} testId="mission-error" />
      {send.value && !send.error && <p role="status">{send.value}</p>}
    </Panel>
  );
}

function MarkAsRead({ users }: { users: Suggestions }) {
  const api = useApi();
  const mark = useAction<string>();
  const fields = useFields({ userId: '' }, mark.error);
  return (
    <Panel title="Mark as read (old)">
      <form
        className="inline-form"
        aria-label="Mark as read"
        onSubmit={(event) => {
          event.preventDefault();
          void mark.run(async () => {
            await api.messaging.markAsRead({ userId: fields.values.userId });
            return 'Marked as read.';
          });
        }}
      >
        <TextField
          label="User ID"
          {...fields.bind('userId')}
          suggestions={users}
          mono
          className="grow"
        />
        <button type="submit" disabled={mark.busy}>
          Mark as read
        </button>
      </form>
      <ErrorNotice error={mark.error} shownFields={fields.names} />
      {mark.value && !mark.error && <p role="status">{mark.value}</p>}
      <p className="note">
        The messaging API’s newer mark-as-read call needs no application; prefer it for new work.
      </p>
    </Panel>
  );
}
