// Send a service message: a template and language make `templateName`, and its variables are
// filled in; the answer's renewed token replaces the one sent.
import { useState, type FormEvent } from 'react';
import {
  TEMPLATE_LANGUAGES,
  type NotificationToken,
  type Template,
} from '../../../core/platform/service-messages/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { SelectField } from '../../components/SelectField';

type Language = (typeof TEMPLATE_LANGUAGES)[number];

export function SendForm({
  templates,
  token,
  channelToken,
  onSent,
}: {
  templates: Template[];
  token: NotificationToken;
  channelToken: string | undefined;
  onSent: (sent: { templateName: string; answer: NotificationToken }) => void;
}) {
  const api = useApi();
  const send = useAction();
  const [name, setName] = useState(templates[0]?.name ?? '');
  const [language, setLanguage] = useState<Language>('en');
  const [params, setParams] = useState<Record<string, string>>({});
  const template = templates.find((t) => t.name === name);
  const variables = template ? [...template.required, ...template.optional] : [];

  async function submit(event: FormEvent) {
    event.preventDefault();
    const templateName = `${name}_${language}`;
    const given = Object.fromEntries(
      variables.filter((v) => params[v]).map((v) => [v, params[v] as string]),
    );
    await send.run(async () => {
      const answer = await api.serviceMessages.send({
        templateName,
        params: given,
        notificationToken: token.notificationToken,
        channelAccessToken: channelToken,
      });
      onSent({ templateName, answer });
    });
  }

  return (
    <form className="stacked-form" onSubmit={submit} aria-label="Send service message">
      <div className="inline-form">
        <SelectField
          label="Template"
          value={name}
          options={templates.map((t) => t.name)}
          onChange={setName}
        />
        <SelectField
          label="Language"
          value={language}
          options={TEMPLATE_LANGUAGES}
          onChange={setLanguage}
        />
        <span className="mono muted" data-testid="sm-template-name">
          {name}_{language}
        </span>
      </div>
      {variables.length > 0 && (
        <div className="inline-form">
          {variables.map((v) => (
            <TextField
              key={v}
              label={`${v}${template?.required.includes(v) ? ' (required)' : ''}`}
              value={params[v] ?? ''}
              onChange={(value) => setParams((prev) => ({ ...prev, [v]: value }))}
            />
          ))}
        </div>
      )}
      <div className="button-row">
        <button type="submit" className="primary" disabled={send.busy}>
          {send.busy ? 'Sending…' : 'Send message'}
        </button>
      </div>
      <ErrorNotice error={send.error} testId="sm-send-error" />
    </form>
  );
}
