// Partial update of one app (PUT /embed/v1/apps/{embedId}): only the fields changed here are
// sent, so the rest stay as they are on the platform.
import { useState, type FormEvent } from 'react';
import {
  BOT_PROMPTS,
  VIEW_TYPES,
  type EmbedApp,
  type UpdateEmbedApp,
} from '../../../core/platform/embed/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { SelectField } from '../../components/SelectField';

export function EditAppForm({
  app,
  onSaved,
  onClose,
}: {
  app: EmbedApp;
  onSaved: () => void;
  onClose: () => void;
}) {
  const api = useApi();
  const save = useAction();
  const [type, setType] = useState(app.view.type as (typeof VIEW_TYPES)[number]);
  const [url, setUrl] = useState(app.view.url);
  const [description, setDescription] = useState(app.description ?? '');
  const [botPrompt, setBotPrompt] = useState(
    (app.botPrompt ?? 'none') as (typeof BOT_PROMPTS)[number],
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const changes: UpdateEmbedApp = {};
    const view: NonNullable<UpdateEmbedApp['view']> = {};
    if (type !== app.view.type) view.type = type;
    if (url !== app.view.url) view.url = url;
    if (Object.keys(view).length) changes.view = view;
    if (description !== (app.description ?? '')) changes.description = description;
    if (botPrompt !== app.botPrompt) changes.botPrompt = botPrompt;
    const ok = await save.run(() => api.embed.updateApp({ embedId: app.embedId, changes }));
    if (ok) onSaved();
  }

  return (
    <Panel
      title={`Edit ${app.embedId}`}
      actions={
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      }
    >
      <form className="inline-form" onSubmit={submit} aria-label="Edit embedded app">
        <SelectField label="View type" value={type} options={VIEW_TYPES} onChange={setType} />
        <TextField
          label="Endpoint URL"
          className="grow"
          value={url}
          onChange={setUrl}
          messages={messagesFor(save.error, 'changes.view.url')}
          mono
        />
        <TextField
          label="Description"
          value={description}
          onChange={setDescription}
          messages={messagesFor(save.error, 'changes.description')}
        />
        <SelectField
          label="Bot prompt"
          value={botPrompt}
          options={BOT_PROMPTS}
          onChange={setBotPrompt}
        />
        <button type="submit" className="primary" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save changes'}
        </button>
        <ErrorNotice error={save.error} shownFields={['changes.view.url', 'changes.description']} />
      </form>
    </Panel>
  );
}
