// The add-app form (POST /embed/v1/apps): the required view type and URL and every optional
// field, defaults as the platform applies them. It clears after an Add, and refuses an app the
// channel already has (same URL and description), so a second click adds no twin
// (docs/decisions.md, "Forms that say why").
import { useState, type FormEvent } from 'react';
import {
  BOT_PROMPTS,
  DEFAULT_SCOPE,
  EMBED_SCOPES,
  VIEW_TYPES,
  type EmbedApp,
  type EmbedScope,
} from '../../../core/platform/embed/schema';
import { AppError } from '../../../core/app/api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import { Checkbox } from '../../components/Checkbox';
import { SelectField } from '../../components/SelectField';

type ViewType = (typeof VIEW_TYPES)[number];
type BotPrompt = (typeof BOT_PROMPTS)[number];

const INITIAL_URL = 'https://example.com/';

export function AddAppForm({
  onAdded,
  existing,
}: {
  onAdded: (embedId: string) => void;
  /** The channel's apps, to refuse a twin of one of them. */
  existing: readonly EmbedApp[];
}) {
  const api = useApi();
  const add = useAction<string>();
  const [type, setType] = useState<ViewType>('full');
  const [url, setUrl] = useState(INITIAL_URL);
  const [description, setDescription] = useState('');
  const [moduleMode, setModuleMode] = useState(false);
  const [qrCode, setQrCode] = useState(false);
  const [botPrompt, setBotPrompt] = useState<BotPrompt>('none');
  const [scope, setScope] = useState<EmbedScope[]>(DEFAULT_SCOPE);

  function clear() {
    setType('full');
    setUrl(INITIAL_URL);
    setDescription('');
    setModuleMode(false);
    setQrCode(false);
    setBotPrompt('none');
    setScope(DEFAULT_SCOPE);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    await add.run(async () => {
      const twin = existing.find(
        (app) => app.view.url === url.trim() && (app.description ?? '') === description.trim(),
      );
      if (twin)
        throw new AppError({
          code: 'invalid_input',
          message: `App ${twin.embedId} already opens this URL under this description`,
          fields: [
            {
              field: 'view.url',
              message: `is already app ${twin.embedId} with this description: change one of them`,
            },
          ],
        });
      const { embedId } = await api.embed.addApp({
        view: { type, url, moduleMode },
        ...(description.trim() ? { description: description.trim() } : {}),
        features: { qrCode },
        scope,
        botPrompt,
      });
      clear();
      onAdded(embedId);
      return embedId;
    });
  }

  const shown = ['view.url', 'description'];
  return (
    <form className="stacked-form embed-add" onSubmit={submit} aria-label="Add embedded app">
      <div className="inline-form">
        <SelectField label="View type" value={type} options={VIEW_TYPES} onChange={setType} />
        <TextField
          label="Endpoint URL"
          className="grow"
          value={url}
          onChange={setUrl}
          messages={messagesFor(add.error, 'view.url')}
          mono
        />
      </div>
      <div className="inline-form">
        <TextField
          label="Description (app name)"
          className="grow"
          value={description}
          onChange={setDescription}
          messages={messagesFor(add.error, 'description')}
          hint="Optional: an app without one is listed as “none”"
        />
        <SelectField
          label="Bot prompt"
          value={botPrompt}
          options={BOT_PROMPTS}
          onChange={setBotPrompt}
        />
      </div>
      <div className="button-row" role="group" aria-label="Scopes">
        {EMBED_SCOPES.map((s) => (
          <Checkbox
            key={s}
            label={`Scope ${s}`}
            checked={scope.includes(s)}
            onChange={(on) => setScope((prev) => (on ? [...prev, s] : prev.filter((x) => x !== s)))}
          />
        ))}
      </div>
      <div className="button-row">
        <Checkbox label="Module mode" checked={moduleMode} onChange={setModuleMode} />
        <Checkbox label="QR code reader" checked={qrCode} onChange={setQrCode} />
        <button type="submit" className="primary" disabled={add.busy}>
          {add.busy ? 'Adding…' : 'Add app'}
        </button>
      </div>
      <ErrorNotice error={add.error} shownFields={shown} testId="embed-add-error" />
      {add.value && !add.error && (
        <p className="note" role="status">
          Added <code className="mono">{add.value}</code>
        </p>
      )}
    </form>
  );
}
