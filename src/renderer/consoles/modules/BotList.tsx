// The bot list (GET /v2/bot/list) with its limit and continuation token.
import type { BotList as BotListAnswer } from '../../../core/platform/modules/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

export function BotList({ moduleChannelId }: { moduleChannelId: string }) {
  const api = useApi();
  const list = useAction<BotListAnswer>();
  const fields = useFields({ limit: '100', start: '' }, list.error);
  const load = (start: string) =>
    void list.run(() =>
      api.modules.listBots({
        moduleChannelId: moduleChannelId || undefined,
        ...(fields.values.limit && { limit: Number(fields.values.limit) }),
        ...(start && { start }),
      }),
    );

  return (
    <Panel title="Attached bots">
      <div className="inline-form">
        <TextField label="limit" {...fields.bind('limit')} inputMode="numeric" className="number" />
        <TextField
          label="start (continuation token)"
          {...fields.bind('start')}
          mono
          className="grow"
        />
        <button type="button" disabled={list.busy} onClick={() => load(fields.values.start)}>
          List bots
        </button>
        {list.value?.next && (
          <button
            type="button"
            disabled={list.busy}
            onClick={() => {
              fields.set('start', list.value?.next ?? '');
              load(list.value?.next ?? '');
            }}
          >
            Next page
          </button>
        )}
      </div>
      <ErrorNotice error={list.error} shownFields={fields.names} />
      {list.value && (
        <table className="grid" aria-label="Bots">
          <TableHead columns={['Display name', 'User ID', 'Basic ID', 'Premium ID']} />
          <tbody>
            {list.value.bots.map((b) => (
              <tr key={b.userId}>
                <td>{b.displayName}</td>
                <td>
                  <CopyableId value={b.userId} label={`user ID of ${b.displayName}`} />
                </td>
                <td>{b.basicId}</td>
                <td>{b.premiumId ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
