// The video service through HTTP: the ten operations over the seeded catalogue, paging,
// a search that matches titles and feeds the last hour's ranking, and parameter errors.
import { describe, expect, it } from 'vitest';
import { CURATION_MODULES, LIVE_STATUSES } from '../../../../src/core/platform/video/schema';
import { useEmulator } from '../../../helpers/emulator';

const emu = useEmulator();
type Body = Record<string, unknown> & { clips?: { clipTitle: string; playCount: number }[] };

async function tv(path: string, query: Record<string, string> = {}, common = true) {
  const channelId = emu().emulator.channels()[0]!.channelId;
  const params = new URLSearchParams({
    ...(common && { platformChannelId: channelId, country: 'th' }),
    ...query,
  });
  return emu().call('GET', `/tv/v1${path}?${params}`);
}
async function body(path: string, query: Record<string, string> = {}): Promise<Body> {
  const res = await tv(path, query);
  expect(res.status).toBe(200);
  const answer = res.body as { header: Record<string, unknown>; body: Body };
  expect(answer.header).toMatchObject({ code: 'OK', country: 'th' });
  return answer.body;
}

describe('video service', () => {
  it('lists the curation modules and serves each one', async () => {
    const { modules } = (await body('/curation/list')) as { modules: { module: string }[] };
    expect(modules.map((m) => m.module)).toEqual([...CURATION_MODULES]);
    for (const module of CURATION_MODULES) {
      const b = await body('/curation', { module });
      expect(b.module).toBe(module);
      const items = (b.clips ?? b.playlists ?? b.channels) as unknown[];
      expect(items.length).toBeGreaterThan(0);
    }
    const top = await body('/curation', { module: 'represent_clip' });
    expect(top.clips).toHaveLength(1);
    expect(top.clips![0]).toEqual({
      clipNo: expect.any(Number),
      clipTitle: expect.any(String),
      likeitPoint: expect.any(Number),
      playCount: expect.any(Number),
      displayPlayTime: expect.stringMatching(/^\d+:\d\d$/),
      thumbnailUrl: expect.stringMatching(/^data:image\/svg\+xml,/),
      serviceUrl: expect.stringMatching(/^https:\/\//),
    });
    const channels = (await body('/curation', { module: 'hot_channel' })).channels as Record<
      string,
      unknown
    >[];
    expect(channels[0]).toMatchObject({
      badgeType: expect.stringMatching(/^(NEW|UPDATE)$/),
      channelEmblem: expect.any(String),
    });
  });

  it('pages categories and the ranking with page/countPerPage (defaults 1 and 10)', async () => {
    const { categories } = (await body('/category/list')) as {
      categories: { categoryCode: string }[];
    };
    expect(categories.length).toBeGreaterThan(3);
    const drama = await body('/category', { categoryCode: 'DRAMA' });
    expect(drama).toMatchObject({ page: 1, countPerPage: 10, totalCount: 10, hasMore: false });
    const p2 = await body('/category', { categoryCode: 'DRAMA', page: '2', countPerPage: '4' });
    expect(p2).toMatchObject({ page: 2, countPerPage: 4, hasMore: true });
    expect(p2.clips).toHaveLength(4);
    expect(p2.clips).toEqual(drama.clips!.slice(4, 8));

    const ranking = await body('/ranking/clip');
    expect(ranking.clips).toHaveLength(10);
    const plays = ranking.clips!.map((c) => c.playCount);
    expect(plays).toEqual([...plays].sort((a, b) => b - a));
    const last = await body('/ranking/clip', { page: '5', countPerPage: '10' });
    expect(last).toMatchObject({ hasMore: false });
    expect(last.clips!.length).toBeLessThan(10);
  });

  it('searches clip titles for every word, case-insensitively, and ranks the last hour of searches', async () => {
    const found = await body('/search/clip', { query: 'CHIANG  mai' });
    const titles = found.clips!.map((c) => c.clipTitle);
    expect(titles.length).toBe(3);
    for (const t of titles) expect(t.toLowerCase()).toMatch(/chiang mai/);
    expect(
      (await body('/search/clip', { query: 'pad thai' })).clips!.map((c) => c.clipTitle),
    ).toEqual(['Best pad thai in Bangkok']);
    expect((await body('/search/clip', { query: 'zebra' })).clips).toEqual([]);
    await body('/search/clip', { query: 'chiang mai' });

    const ranking = (await body('/search/ranking')) as {
      keywords: { rank: number; keyword: string; count: number }[];
    };
    expect(ranking.keywords.slice(0, 3)).toEqual([
      { rank: 1, keyword: 'chiang mai', count: 2 },
      expect.objectContaining({ rank: 2 }),
      expect.objectContaining({ rank: 3 }),
    ]);
    await emu().admin('POST', '/clock/advance', { ms: 3_600_000 });
    expect(((await body('/search/ranking')) as { keywords: unknown[] }).keywords).toEqual([]);
  });

  it('lists stations and serves a station home', async () => {
    const { stations } = (await body('/station/list')) as { stations: { stationId: string }[] };
    expect(stations).toHaveLength(3);
    const { station } = (await body('/station', { stationId: stations[0]!.stationId })) as {
      station: Record<string, unknown> & { popularClip: { playCount: number }[] };
    };
    expect(station).toMatchObject({
      stationBigBanner: expect.any(String),
      fanCount: expect.any(Number),
      clipCount: expect.any(Number),
      channelCount: expect.any(Number),
      popularChannel: expect.any(Array),
      stationBanner: { thumbnailUrl: expect.any(String), linkUrl: expect.any(String) },
    });
    const plays = station.popularClip.map((c) => c.playCount);
    expect(plays).toEqual([...plays].sort((a, b) => b - a));
  });

  it('serves a live schedule with every liveStatus, all fields strings', async () => {
    const { lives } = (await body('/live/schedule')) as { lives: Record<string, unknown>[] };
    expect(lives.map((l) => l.liveStatus).sort()).toEqual([...LIVE_STATUSES].sort());
    for (const live of lives)
      for (const value of Object.values(live)) expect(typeof value).toBe('string');
  });

  it.each([
    ['/curation/list', {}, false, 'platformChannelId'],
    ['/curation/list', { platformChannelId: '1', country: 'th' }, false, 'platformChannelId'],
    ['/curation/list', { country: 'jp' }, true, 'country'],
    ['/curation', { module: 'best_clip' }, true, 'module'],
    ['/category', {}, true, 'categoryCode'],
    ['/category', { categoryCode: 'DRAMA', page: '0' }, true, 'page'],
    ['/ranking/clip', { countPerPage: '101' }, true, 'countPerPage'],
    ['/ranking/clip', { page: 'two' }, true, 'page'],
    ['/search/clip', { query: '   ' }, true, 'query'],
    ['/station', {}, true, 'stationId'],
  ])('answers 400 for %s %j, naming %s', async (path, query, common, name) => {
    const channelId = emu().emulator.channels()[0]!.channelId;
    const q = common ? { platformChannelId: channelId, country: 'th', ...query } : query;
    const res = await tv(path, q as Record<string, string>, false);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: expect.stringContaining(name),
      header: { code: 'INVALID_PARAMETER' },
    });
  });

  it('answers 404 for an unknown category or station', async () => {
    expect((await tv('/category', { categoryCode: 'OPERA' })).status).toBe(404);
    expect((await tv('/station', { stationId: 'st999' })).status).toBe(404);
  });

  it('answers 401 without a token', async () => {
    const res = await emu().call('GET', '/tv/v1/curation/list?country=th', undefined, null);
    expect(res.status).toBe(401);
  });
});
