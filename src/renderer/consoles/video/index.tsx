// Console for the video service (docs/platform-api.md#video): search clips, see what people
// searched in the last hour, and browse the curated catalogue with thumbnails as the user would see
// them.
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { searchSchema } from '../../../core/platform/video/schema';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { TextField } from '../../components/TextField';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { useFields } from '../../lib/use-fields';
import { useLoad } from '../../lib/use-load';
import { Browse } from './Browse';
import { ClipGrid } from './ClipGrid';

export function Video() {
  const api = useApi();
  const search = useAction<z.output<typeof searchSchema>>();
  const fields = useFields({ query: '' }, search.error);
  const ranking = useLoad((api) => api.video.searchRanking({}), []);
  const { reload } = ranking;

  async function submit(event: FormEvent) {
    event.preventDefault();
    await search.run(async () => {
      const answer = await api.video.search({ query: fields.values.query, countPerPage: 30 });
      reload();
      return answer;
    });
  }

  return (
    <div className="page">
      <header className="page-header">
        <h1>Video service</h1>
        <p className="muted">
          Curated clips, categories, rankings, search, stations and live schedules (country th).
        </p>
      </header>
      <Panel title="Search clips">
        <form className="inline-form" role="search" aria-label="Clip search" onSubmit={submit}>
          <TextField
            label="Search words"
            {...fields.bind('query')}
            placeholder="e.g. chiang mai"
            className="grow"
          />
          <button type="submit" className="primary" disabled={search.busy}>
            Search
          </button>
        </form>
        <ErrorNotice error={search.error} shownFields={fields.names} />
        {search.value && (
          <>
            <p role="status" data-testid="video-search-count">
              {search.value.body.totalCount} clips match “{search.value.body.query}”
            </p>
            <ClipGrid clips={search.value.body.clips} label="Search results" />
          </>
        )}
        {ranking.value && ranking.value.body.keywords.length > 0 && (
          <p className="muted" data-testid="video-search-ranking">
            Searched in the last hour:{' '}
            {ranking.value.body.keywords
              .map((k) => `${k.rank}. ${k.keyword} (${k.count})`)
              .join(' · ')}
          </p>
        )}
      </Panel>
      <Browse />
    </div>
  );
}
