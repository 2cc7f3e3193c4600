// What the emulator knows of the active channel beyond its credentials: mini app (service
// messages then refuse long-lived tokens), BLE support (`features.ble`), and the permissions
// whose absence answers 403.
import type { ChannelSettings as Settings } from '../../../core/platform/embed/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { LoadFailure } from '../../components/LoadFailure';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useLoad } from '../../lib/use-load';
import { Checkbox } from '../../components/Checkbox';

const FLAGS: { key: keyof Omit<Settings, 'channelId'>; label: string }[] = [
  { key: 'miniApp', label: 'Mini app channel' },
  { key: 'ble', label: 'Supports BLE (features.ble)' },
  { key: 'serviceMessages', label: 'Authorized for service messages' },
  { key: 'inAppPurchase', label: 'In-app purchase applied' },
];

export function ChannelSettings({ onChanged }: { onChanged?: () => void }) {
  const api = useApi();
  const settings = useLoad((api) => api.embed.getChannel({}), []);
  const update = useAction();
  const s = settings.value;
  return (
    <Panel title="Channel (emulator)">
      {settings.error !== undefined && !s && (
        <LoadFailure error={settings.error} onRetry={settings.reload} />
      )}
      {s && (
        <>
          <p className="muted">
            Channel <code className="mono">{s.channelId}</code>
          </p>
          <div className="button-row" role="group" aria-label="Channel settings">
            {FLAGS.map(({ key, label }) => (
              <Checkbox
                key={key}
                label={label}
                checked={s[key]}
                disabled={update.busy}
                onChange={(checked) =>
                  void update.run(async () => {
                    await api.embed.updateChannel({ [key]: checked });
                    settings.reload();
                    onChanged?.();
                  })
                }
              />
            ))}
          </div>
        </>
      )}
      <ErrorNotice error={update.error} />
    </Panel>
  );
}
