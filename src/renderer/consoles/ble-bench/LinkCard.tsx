// A connected board's link, as nRF Connect for Desktop shows it: address, state, MTU, connection
// interval, latency, supervision timeout, PHY, security level and a live RSSI, with the requests
// that change them (connection parameters, PHY, pairing, an MTU). Each request is one HCI
// procedure in the BLE process, or for the MTU a new link whose Exchange MTU Request asks for
// it; the values shown are the controller's and the board's answers, not what was asked.
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { SelectField } from '../../components/SelectField';
import { LinkFact } from './LinkFact';
import { LinkSecurityFacts } from './LinkSecurityFacts';
import { PairForm } from './PairForm';
import { useApi } from '../../lib/api-context';
import { messagesFor } from '../../lib/errors';
import { useAction } from '../../lib/use-action';
import {
  ATT_MTU,
  PHYS,
  SECURITY_LEVELS,
  type LinkInfo,
  type Phy,
} from '../../../core/ble/link-parameters';
import { rssiText } from '../../../core/ble/rssi';

/**
 * How often the card reads the RSSI (Read RSSI, one HCI command each) while connected. A read
 * is asked only once the last one answered: each waits its turn behind the link's procedure in
 * flight — a pairing waits up to the SMP's 30 s for the person — and a browser holds at most
 * six requests to the bench server at once, so stacked reads once kept a late passkey's answer
 * from being sent at all (docs/decisions/ble-and-hci.md, "A passkey typed late").
 */
const RSSI_EVERY_MS = 2_000;

interface LinkCardProps {
  connectionId: string;
  /** The board as its card is titled: its name, else its address. */
  board: string;
  address: string;
  link: LinkInfo | undefined;
  lost: boolean;
}

const PHY_LABELS: Record<Phy, string> = { '1M': 'LE 1M', '2M': 'LE 2M', coded: 'LE Coded' };

export function LinkCard({ connectionId, board, address, link, lost }: LinkCardProps) {
  const api = useApi();
  const request = useAction<LinkInfo>();
  const reconnect = useAction<unknown>();
  // Until a reconnect asks for one, nRF Connect for Desktop's default ask; the link gets the
  // smaller of the ask and the board's. A reconnect keeps the link's id, so this card stays.
  const [mtu, setMtu] = useState('247');
  const [parameters, setParameters] = useState({
    minIntervalMs: '30',
    maxIntervalMs: '50',
    latency: '0',
    supervisionTimeoutMs: '4000',
  });
  const [phy, setPhy] = useState<Phy>('2M');
  const controls = link !== undefined && !lost;

  useEffect(() => {
    if (!controls) return;
    let reading = false;
    const read = () => {
      if (reading) return;
      reading = true;
      void api.ble
        .readRssi({ connectionId })
        .catch(() => undefined)
        .finally(() => (reading = false));
    };
    const timer = setInterval(read, RSSI_EVERY_MS);
    read();
    return () => clearInterval(timer);
  }, [api, connectionId, controls]);

  function update(event: FormEvent) {
    event.preventDefault();
    void request.run(() =>
      api.ble.updateConnection({
        connectionId,
        parameters: {
          minIntervalMs: Number(parameters.minIntervalMs),
          maxIntervalMs: Number(parameters.maxIntervalMs),
          latency: Number(parameters.latency),
          supervisionTimeoutMs: Number(parameters.supervisionTimeoutMs),
        },
      }),
    );
  }

  const field = (name: keyof typeof parameters, label: string) => (
    <TextField
      label={label}
      className="ble-link-number"
      inputMode="decimal"
      value={parameters[name]}
      onChange={(value) => setParameters((p) => ({ ...p, [name]: value }))}
      messages={messagesFor(request.error, `parameters.${name}`)}
    />
  );

  return (
    <div className="ble-link" data-testid="link-card">
      <dl className="ble-link-facts">
        <LinkFact label="State" testId="link-state">
          <span className={lost ? 'bad' : 'good'}>{lost ? 'Disconnected' : 'Connected'}</span>
        </LinkFact>
        <LinkFact label="Address" testId="link-address">
          <span className="mono">{address}</span>
        </LinkFact>
        {link ? (
          <>
            <LinkFact label="MTU" testId="link-mtu">
              {link.mtu}
            </LinkFact>
            <LinkFact label="Interval" testId="link-interval">
              {link.intervalMs} ms
            </LinkFact>
            <LinkFact label="Latency" testId="link-latency">
              {link.latency}
            </LinkFact>
            <LinkFact label="Timeout" testId="link-timeout">
              {link.supervisionTimeoutMs} ms
            </LinkFact>
            <LinkFact label="PHY" testId="link-phy">
              {link.txPhy === link.rxPhy
                ? PHY_LABELS[link.txPhy]
                : `TX ${PHY_LABELS[link.txPhy]} · RX ${PHY_LABELS[link.rxPhy]}`}
            </LinkFact>
            <LinkFact label="Security" testId="link-security">
              {SECURITY_LEVELS[link.securityLevel]}
            </LinkFact>
            <LinkSecurityFacts security={link.security} />
            <LinkFact label="RSSI" testId="link-rssi">
              {link.rssi === undefined ? '…' : rssiText(link.rssi)}
            </LinkFact>
          </>
        ) : (
          <p className="note small">
            This adapter does not show the link&apos;s parameters (no HCI access).
          </p>
        )}
      </dl>
      {controls && (
        <div className="ble-link-controls">
          <form className="inline-form" aria-label="Connection parameters" onSubmit={update}>
            {field('minIntervalMs', 'Min interval (ms)')}
            {field('maxIntervalMs', 'Max interval (ms)')}
            {field('latency', 'Latency (events)')}
            {field('supervisionTimeoutMs', 'Timeout (ms)')}
            <button type="submit" disabled={request.busy}>
              Update parameters
            </button>
          </form>
          <form
            className="inline-form"
            aria-label="PHY"
            onSubmit={(event) => {
              event.preventDefault();
              void request.run(() => api.ble.setPhy({ connectionId, phy: { tx: phy, rx: phy } }));
            }}
          >
            <SelectField
              label="PHY"
              value={phy}
              options={PHYS.map((p) => ({ value: p, label: PHY_LABELS[p] }))}
              onChange={(value) => setPhy(value as Phy)}
            />
            <button type="submit" disabled={request.busy}>
              Set PHY
            </button>
          </form>
          <PairForm
            board={board}
            paired={link.securityLevel > 1}
            busy={request.busy}
            onPair={(choice) => void request.run(() => api.ble.pair({ connectionId, ...choice }))}
          />
          <form
            className="inline-form"
            aria-label="MTU"
            onSubmit={(event) => {
              event.preventDefault();
              void reconnect.run(() => api.ble.reconnect({ connectionId, mtu: Number(mtu) }));
            }}
          >
            <TextField
              label={`MTU to ask (${ATT_MTU.min}–${ATT_MTU.max})`}
              className="ble-link-number"
              inputMode="numeric"
              value={mtu}
              onChange={setMtu}
              messages={messagesFor(reconnect.error, 'mtu')}
            />
            <button
              type="submit"
              disabled={request.busy || reconnect.busy}
              title="ATT exchanges the MTU once per link: this disconnects and connects again"
            >
              {reconnect.busy ? 'Reconnecting…' : 'Reconnect with this MTU'}
            </button>
          </form>
        </div>
      )}
      <ErrorNotice error={reconnect.error} shownFields={['mtu']} />
      <ErrorNotice
        error={request.error}
        shownFields={[
          'parameters.minIntervalMs',
          'parameters.maxIntervalMs',
          'parameters.latency',
          'parameters.supervisionTimeoutMs',
        ]}
      />
    </div>
  );
}
