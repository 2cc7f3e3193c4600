// The emulator's sticker sets and channel permissions: what decides each mission-sticker answer.
import { useState, type FormEvent } from 'react';
import type { MissionState } from '../../../core/platform/mission-stickers/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { formatTime } from '../../lib/format';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { SelectField } from '../../components/SelectField';

const period = (start: number | null, end: number | null) =>
  start === null && end === null
    ? 'always'
    : `${start === null ? '…' : formatTime(start)} – ${end === null ? '…' : formatTime(end)}`;

export function StickerSets({ state, onChange }: { state: MissionState; onChange: () => void }) {
  const api = useApi();
  const action = useAction();
  const fields = useFields({ productId: '', name: '', regions: '' }, action.error);
  const [mission, setMission] = useState(true);
  const [failure, setFailure] = useState('');
  const act = (call: () => Promise<unknown>) =>
    void action.run(async () => {
      await call();
      onChange();
    });
  function submit(event: FormEvent) {
    event.preventDefault();
    act(() =>
      api.missionStickers.putSet({
        productId: fields.values.productId,
        set: {
          name: fields.values.name,
          missionSticker: mission,
          regions: fields.values.regions.split(/[\s,]+/).filter(Boolean),
          failure: failure ? (failure as 'internal' | 'upstream') : null,
        },
      }),
    );
  }
  return (
    <Panel title="Emulator: sticker sets and permissions">
      <table className="grid" aria-label="Sticker sets">
        <TableHead
          columns={[
            'Package ID',
            'Name',
            'Mission set',
            'Sales period',
            'Regions',
            'Channels',
            'Backend',
          ]}
        />
        <tbody>
          {state.sets.map((s) => (
            <tr key={s.productId}>
              <td className="mono">{s.productId}</td>
              <td>{s.name}</td>
              <td>{s.missionSticker ? 'yes' : 'no'}</td>
              <td>{period(s.salesStart, s.salesEnd)}</td>
              <td>{s.regions.join(', ') || 'everywhere'}</td>
              <td>{s.channelIds.join(', ') || 'any'}</td>
              <td>{s.failure ?? 'ok'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="inline-form" onSubmit={submit} aria-label="Save sticker set">
        <TextField label="Package ID" {...fields.bind('productId')} mono className="number" />
        <TextField label="Name" {...fields.bind('name')} />
        <TextField
          label="Regions"
          {...fields.bind('regions')}
          placeholder="TH, JP (empty: everywhere)"
        />
        <div className="field checkbox">
          <input
            id="mission-set-mission"
            type="checkbox"
            checked={mission}
            onChange={(e) => setMission(e.target.checked)}
          />
          <label htmlFor="mission-set-mission">Mission set</label>
        </div>
        <SelectField
          label="Backend"
          value={failure}
          onChange={setFailure}
          options={[
            { value: 'internal', label: 'fails: internal error (500)' },
            { value: 'upstream', label: 'fails: upstream error (502)' },
          ]}
          placeholder="works"
        />
        <button type="submit" disabled={action.busy}>
          Save set
        </button>
      </form>
      <ErrorNotice error={action.error} />
      <h3>Mission sticker permission</h3>
      <ul className="stack">
        {state.channels.map((c) => (
          <li key={c.channelId}>
            {c.name} <span className="mono muted">{c.channelId}</span>:{' '}
            {c.allowed ? 'allowed' : 'not allowed (403)'}{' '}
            <button
              type="button"
              className="link"
              disabled={action.busy}
              onClick={() =>
                act(() =>
                  api.missionStickers.setPermission({
                    channelId: c.channelId,
                    allowed: !c.allowed,
                  }),
                )
              }
            >
              {c.allowed ? 'Revoke' : 'Grant'}
            </button>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
