// Browsing the catalogue: curation modules, categories with paging, the clip ranking, stations
// and the live schedule, one at a time.
import { useState } from 'react';
import { CURATION_MODULES, type CurationModule } from '../../../core/platform/video/schema';
import { LoadFailure } from '../../components/LoadFailure';
import { Panel } from '../../components/Panel';
import { TableHead } from '../../components/TableHead';
import { useLoad } from '../../lib/use-load';
import { SelectField } from '../../components/SelectField';
import { ClipGrid } from './ClipGrid';
import { Thumbnail } from './Thumbnail';

type View = 'curation' | 'category' | 'ranking' | 'stations' | 'live';
const VIEWS: { value: View; label: string }[] = [
  { value: 'curation', label: 'Curation' },
  { value: 'category', label: 'Categories' },
  { value: 'ranking', label: 'Clip ranking' },
  { value: 'stations', label: 'Stations' },
  { value: 'live', label: 'Live schedule' },
];

export function Browse() {
  const [view, setView] = useState<View>('curation');
  return (
    <Panel
      title="Browse"
      actions={
        <div className="tabs" role="tablist" aria-label="Catalogue">
          {VIEWS.map((v) => (
            <button
              key={v.value}
              type="button"
              role="tab"
              aria-selected={view === v.value}
              onClick={() => setView(v.value)}
            >
              {v.label}
            </button>
          ))}
        </div>
      }
    >
      {view === 'curation' && <Curation />}
      {view === 'category' && <Categories />}
      {view === 'ranking' && <Ranking />}
      {view === 'stations' && <Stations />}
      {view === 'live' && <LiveSchedule />}
    </Panel>
  );
}

function Pager({
  page,
  hasMore,
  onPage,
}: {
  page: number;
  hasMore: boolean;
  onPage: (page: number) => void;
}) {
  return (
    <div className="button-row" role="group" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>Page {page}</span>
      <button type="button" disabled={!hasMore} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </div>
  );
}

function Curation() {
  const [module, setModule] = useState<CurationModule>('represent_clip');
  const data = useLoad((api) => api.video.curation({ module }), [module]);
  const body = data.value?.body;
  return (
    <>
      <SelectField
        label="Module"
        value={module}
        onChange={(v) => setModule(v as CurationModule)}
        options={CURATION_MODULES.map((m) => ({ value: m, label: m }))}
      />
      {data.error !== undefined && <LoadFailure error={data.error} onRetry={data.reload} />}
      {body && <h3>{body.title}</h3>}
      {body?.clips && <ClipGrid clips={body.clips} label={body.title} />}
      {body?.playlists && (
        <ul className="video-grid" aria-label={body.title}>
          {body.playlists.map((p) => (
            <li key={p.playlistNo} className="video-card">
              <Thumbnail src={p.thumbnailUrl} alt={p.playlistTitle} />
              <strong className="video-title">{p.playlistTitle}</strong>
              <span className="muted">{p.clipCount} clips</span>
            </li>
          ))}
        </ul>
      )}
      {body?.channels && (
        <ul className="video-grid" aria-label={body.title}>
          {body.channels.map((c) => (
            <li key={c.channelId} className="video-card">
              <Thumbnail src={c.channelEmblem} alt={`${c.channelName} emblem`} round />
              <strong className="video-title">{c.channelName}</strong>
              {c.badgeType && <span className="badge">{c.badgeType}</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Categories() {
  const list = useLoad((api) => api.video.categoryList({}), []);
  const [code, setCode] = useState('');
  const [page, setPage] = useState(1);
  const categoryCode = code || list.value?.body.categories[0]?.categoryCode || '';
  const data = useLoad(
    (api) =>
      categoryCode ? api.video.category({ categoryCode, page }) : Promise.resolve(undefined),
    [categoryCode, page],
  );
  return (
    <>
      <SelectField
        label="Category"
        value={categoryCode}
        onChange={(v) => {
          setCode(v);
          setPage(1);
        }}
        options={(list.value?.body.categories ?? []).map((c) => ({
          value: c.categoryCode,
          label: c.categoryName,
        }))}
      />
      {data.error !== undefined && <LoadFailure error={data.error} onRetry={data.reload} />}
      {data.value && (
        <>
          <ClipGrid clips={data.value.body.clips} label={data.value.body.categoryName} />
          <Pager page={page} hasMore={data.value.body.hasMore} onPage={setPage} />
        </>
      )}
    </>
  );
}

function Ranking() {
  const [page, setPage] = useState(1);
  const data = useLoad((api) => api.video.ranking({ page }), [page]);
  if (data.error !== undefined) return <LoadFailure error={data.error} onRetry={data.reload} />;
  if (!data.value) return <p role="status">Loading…</p>;
  return (
    <>
      <ClipGrid clips={data.value.body.clips} label="Clip ranking" />
      <Pager page={page} hasMore={data.value.body.hasMore} onPage={setPage} />
    </>
  );
}

function Stations() {
  const list = useLoad((api) => api.video.stationList({}), []);
  const [picked, setPicked] = useState('');
  const stationId = picked || list.value?.body.stations[0]?.stationId || '';
  const home = useLoad(
    (api) => (stationId ? api.video.station({ stationId }) : Promise.resolve(undefined)),
    [stationId],
  );
  const station = home.value?.body.station;
  return (
    <>
      <SelectField
        label="Station"
        value={stationId}
        onChange={setPicked}
        options={(list.value?.body.stations ?? []).map((s) => ({
          value: s.stationId,
          label: s.stationName,
        }))}
      />
      {home.error !== undefined && <LoadFailure error={home.error} onRetry={home.reload} />}
      {station && (
        <>
          <Thumbnail src={station.stationBigBanner} alt={`${station.stationName} banner`} />
          <p>
            {station.stationDesc} · {station.fanCount.toLocaleString()} fans · {station.clipCount}{' '}
            clips · {station.channelCount} channels
          </p>
          <h3>Popular clips</h3>
          <ClipGrid clips={station.popularClip} label={`Popular clips of ${station.stationName}`} />
        </>
      )}
    </>
  );
}

function LiveSchedule() {
  const data = useLoad((api) => api.video.liveSchedule({}), []);
  if (data.error !== undefined) return <LoadFailure error={data.error} onRetry={data.reload} />;
  return (
    <table className="grid" aria-label="Live schedule">
      <TableHead columns={['', 'Live', 'Channel', 'Status', 'Start', 'End', 'Plays']} />
      <tbody>
        {(data.value?.body.lives ?? []).map((l) => (
          <tr key={l.liveNo}>
            <td>
              <Thumbnail src={l.thumbnailUrl} alt={l.liveTitle} />
            </td>
            <td>{l.liveTitle}</td>
            <td>{l.channelName}</td>
            <td>
              <span className="badge">{l.liveStatus}</span>
            </td>
            <td className="mono">{l.liveStartDate}</td>
            <td className="mono">{l.liveEndDate}</td>
            <td>{l.playCount}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
