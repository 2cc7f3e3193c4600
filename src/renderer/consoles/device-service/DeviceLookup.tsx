// Looks a device up by its device ID (GET /things/v1/devices/{deviceId}).
import { useState, type FormEvent } from 'react';
import type { Device } from '../../../core/platform/things/schema';
import { CopyableId } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';

export function DeviceLookup() {
  const api = useApi();
  const [deviceId, setDeviceId] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ device?: Device; error?: unknown }>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      setResult({ device: await api.things.getDevice({ deviceId }) });
    } catch (error) {
      setResult({ error });
    } finally {
      setBusy(false);
    }
  }

  const { device, error } = result;
  return (
    <section className="panel" aria-labelledby="device-lookup-title">
      <header className="panel-header">
        <h2 id="device-lookup-title">Device lookup</h2>
      </header>
      <form className="inline-form" onSubmit={submit} aria-label="Look up device">
        <TextField
          label="Device ID"
          name="deviceId"
          value={deviceId}
          onChange={setDeviceId}
          mono
          messages={messagesFor(error, 'deviceId')}
          className="grow"
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      <ErrorNotice error={error} shownFields={['deviceId']} testId="device-error" />
      {device && (
        <dl className="facts" data-testid="device-result">
          <dt>Device ID</dt>
          <dd>
            <CopyableId value={device.id} label="device ID" />
          </dd>
          <dt>Product ID</dt>
          <dd>
            <CopyableId value={device.productId} label="product ID" />
          </dd>
          <dt>Product-specific device ID</dt>
          <dd>
            <CopyableId value={device.productSpecificDeviceId} label="PSDI" />
          </dd>
        </dl>
      )}
    </section>
  );
}
