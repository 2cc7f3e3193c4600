// Console for the embedded-app server API (docs/platform-api.md#embed): the channel's apps (up to
// 30), add, partial update and delete, and the emulator's settings of the channel.
import { useState } from 'react';
import { EMBED_APP_LIMIT, type EmbedApp } from '../../../core/platform/embed/schema';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyableId } from '../../components/CopyButton';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useApi } from '../../lib/api-context';
import { useLoad } from '../../lib/use-load';
import { AddAppForm } from './AddAppForm';
import { ChannelSettings } from './ChannelSettings';
import { EditAppForm } from './EditAppForm';
import { LoadFailure } from '../../components/LoadFailure';

export function Embed() {
  const api = useApi();
  const apps = useLoad((api) => api.embed.listApps({}), []);
  const [editing, setEditing] = useState<string>();
  const [pendingDelete, setPendingDelete] = useState<EmbedApp>();
  const list = apps.value?.apps;
  const edited = list?.find((a) => a.embedId === editing);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Embedded apps</h1>
        <p className="muted">Apps opened inside the messaging client, on the login channel.</p>
      </header>
      <ChannelSettings onChanged={apps.reload} />
      <Panel
        title="Apps"
        actions={
          <>
            {list && (
              <span className="muted" data-testid="embed-app-count">
                {list.length} of {EMBED_APP_LIMIT}
              </span>
            )}
            <button type="button" className="link" onClick={apps.reload} disabled={apps.loading}>
              Refresh
            </button>
          </>
        }
      >
        <AddAppForm onAdded={apps.reload} existing={list ?? []} />
        {apps.error !== undefined && <LoadFailure error={apps.error} onRetry={apps.reload} />}
        {list && list.length === 0 && (
          <p className="note empty" data-testid="embed-apps-empty">
            No app on this channel (the platform answers 404 to the list).
          </p>
        )}
        {list && list.length > 0 && (
          <div className="table-scroll">
            <table className="grid" aria-label="Embedded apps">
              <TableHead
                columns={['App ID', 'Description', 'View', 'Scope', 'Bot prompt', 'Features']}
                rowActions
              />
              <tbody>
                {list.map((app) => (
                  <tr key={app.embedId} data-testid="embed-app-row" data-embed-id={app.embedId}>
                    <td>
                      <CopyableId value={app.embedId} label={`app ID ${app.embedId}`} />
                    </td>
                    <td>{app.description ?? <em className="muted">none</em>}</td>
                    <td>
                      <span className="badge">{app.view.type}</span>{' '}
                      <span className="mono">{app.view.url}</span>
                      {app.view.moduleMode && <span className="badge">module</span>}
                    </td>
                    <td className="mono">{app.scope?.join(' ')}</td>
                    <td>{app.botPrompt}</td>
                    <td>
                      {app.features?.ble ? 'BLE ' : ''}
                      {app.features?.qrCode ? 'QR' : ''}
                    </td>
                    <td className="row-actions">
                      <button
                        type="button"
                        aria-label={`Edit ${app.embedId}`}
                        onClick={() => setEditing(app.embedId)}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Delete ${app.embedId}`}
                        onClick={() => setPendingDelete(app)}
                      >
                        Delete…
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
      {edited && (
        <EditAppForm
          key={edited.embedId}
          app={edited}
          onSaved={apps.reload}
          onClose={() => setEditing(undefined)}
        />
      )}
      {pendingDelete && (
        <ConfirmDialog
          title="Delete embedded app?"
          confirmLabel="Delete app"
          onConfirm={async () => {
            await api.embed.deleteApp({ embedId: pendingDelete.embedId });
            setPendingDelete(undefined);
            apps.reload();
          }}
          onCancel={() => setPendingDelete(undefined)}
        >
          <p>
            <code className="mono">{pendingDelete.embedId}</code> will be deleted from the channel.
            Links to it stop working.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
