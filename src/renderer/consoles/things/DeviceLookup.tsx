// Looks a device up by its device ID (GET /things/v1/devices/{deviceId}).
import type { FormEvent } from 'react';
import type { Device } from '../../../core/platform/things/schema';
import { IdFact } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';

export function DeviceLookup() {
  const api = useApi();
  const lookup = useAction<Device>();
  const fields = useFields({ deviceId: '' }, lookup.error);

  async function submit(event: FormEvent) {
    event.preventDefault();
    await lookup.run(() => api.things.getDevice({ deviceId: fields.values.deviceId }));
  }

  const device = lookup.value;
  return (
    <Panel title="Device lookup">
      <form className="inline-form" onSubmit={submit} aria-label="Look up device">
        <TextField label="Device ID" {...fields.bind('deviceId')} mono className="grow" />
        <button type="submit" disabled={lookup.busy}>
          {lookup.busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      <ErrorNotice error={lookup.error} shownFields={fields.names} testId="device-error" />
      {device && (
        <dl className="facts" data-testid="device-result">
          <IdFact term="Device ID" value={device.id} label="device ID" />
          <IdFact term="Product ID" value={device.productId} label="product ID" />
          <IdFact
            term="Product-specific device ID"
            value={device.productSpecificDeviceId}
            label="PSDI"
          />
        </dl>
      )}
    </Panel>
  );
}
