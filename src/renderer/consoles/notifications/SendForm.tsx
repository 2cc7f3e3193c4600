// Template and flexible sends: the recipient hash, a delivery tag, and the body as JSON so
// every field (and every mistake) reaches the platform as typed.
import { useState, type FormEvent } from 'react';
import type { NotificationTemplate } from '../../../core/platform/notifications/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { SelectField } from '../../components/SelectField';

const SAMPLE_TEMPLATE_BODY = JSON.stringify(
  {
    emphasizedItem: { itemKey: 'total', content: '฿1,250' },
    items: [{ itemKey: 'order_number', content: 'A-1001' }],
    buttons: [{ buttonKey: 'track_parcel', url: 'https://shop.example.com/track/A-1001' }],
  },
  null,
  2,
);
const SAMPLE_MESSAGES = JSON.stringify(
  [{ type: 'text', text: 'Your order has shipped.' }],
  null,
  2,
);

function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${field} is not valid JSON.`);
  }
}

export function SendForm({
  to,
  onTo,
  templates,
  onSent,
}: {
  to: string;
  onTo: (to: string) => void;
  templates: NotificationTemplate[];
  onSent: () => void;
}) {
  const api = useApi();
  const send = useAction<string>();
  const [kind, setKind] = useState<'template' | 'flexible'>('template');
  const fields = useFields({ templateKey: 'delivery_completed_en', deliveryTag: '' }, send.error);
  const [json, setJson] = useState(SAMPLE_TEMPLATE_BODY);

  async function submit(event: FormEvent) {
    event.preventDefault();
    await send.run(async () => {
      const deliveryTag = fields.values.deliveryTag || undefined;
      if (kind === 'template') {
        const body = json.trim()
          ? (parseJson(json, 'The body') as Record<string, unknown>)
          : undefined;
        await api.notifications.sendTemplate({
          to,
          templateKey: fields.values.templateKey,
          body,
          deliveryTag,
        });
      } else {
        const messages = parseJson(json, 'Messages') as Record<string, unknown>[];
        await api.notifications.sendFlexible({ to, messages, deliveryTag });
      }
      onSent();
      return kind === 'template' ? 'Accepted (202).' : 'Sent (200).';
    });
  }

  return (
    <Panel title="Send a notification message">
      <form className="stacked-form" onSubmit={submit} aria-label="Send notification message">
        <div className="inline-form">
          <SelectField
            label="Kind"
            value={kind}
            onChange={(v) => {
              setKind(v as 'template' | 'flexible');
              setJson(v === 'template' ? SAMPLE_TEMPLATE_BODY : SAMPLE_MESSAGES);
            }}
            options={[
              { value: 'template', label: 'Template' },
              { value: 'flexible', label: 'Flexible' },
            ]}
          />
          <TextField
            label="To (SHA-256 of E.164)"
            name="to"
            value={to}
            onChange={onTo}
            mono
            className="grow"
          />
        </div>
        <div className="inline-form">
          {kind === 'template' && (
            <TextField
              label="Template key"
              {...fields.bind('templateKey')}
              suggestions={templates.map((t) => ({
                value: t.templateKey,
                label: `items ${t.itemKeys.join(', ')}`,
              }))}
            />
          )}
          <TextField
            label="Delivery tag (16-100 characters)"
            {...fields.bind('deliveryTag')}
            className="grow"
          />
        </div>
        <div className="field">
          <label htmlFor="pnp-json">
            {kind === 'template' ? 'Body (JSON)' : 'Messages (JSON array)'}
          </label>
          <textarea
            id="pnp-json"
            className="mono"
            rows={8}
            value={json}
            onChange={(e) => setJson(e.target.value)}
          />
        </div>
        <div>
          <button type="submit" className="primary" disabled={send.busy}>
            {send.busy ? 'Sending…' : 'Send'}
          </button>
        </div>
      </form>
      <ErrorNotice error={send.error} shownFields={fields.names} testId="pnp-send-error" />
      {send.value && !send.error && (
        <p role="status" data-testid="pnp-send-result">
          {send.value}
        </p>
      )}
    </Panel>
  );
}
