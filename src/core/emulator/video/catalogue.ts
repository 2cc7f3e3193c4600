// The emulator's video catalogue: categories, channels, clips, playlists, stations and a live
// schedule covering every `liveStatus`. Fixed data with derived numbers, so every emulator
// serves the same catalogue; live times are laid out around the virtual clock's now.
import { thumbnailDataUrl } from './thumbnail';
import type { Clip, Live, Playlist, Station, VideoChannel } from '../../platform/video/schema';
import { LIVE_STATUSES } from '../../platform/video/schema';

const SERVICE = 'https://tv.example.com';

export const CATEGORIES = [
  { categoryCode: 'DRAMA', categoryName: 'Drama' },
  { categoryCode: 'MUSIC', categoryName: 'Music' },
  { categoryCode: 'VARIETY', categoryName: 'Variety' },
  { categoryCode: 'SPORTS', categoryName: 'Sports' },
  { categoryCode: 'FOOD', categoryName: 'Food & travel' },
  { categoryCode: 'TECH', categoryName: 'Tech' },
];

/** [channel name, category, badge, clip titles] */
const CHANNEL_DATA: [string, string, 'NEW' | 'UPDATE', string[]][] = [
  [
    'Bangkok Beats',
    'MUSIC',
    'UPDATE',
    [
      'Sunset Session live on the river',
      'Morlam remix party',
      'Acoustic covers: rainy season',
      'Behind the stage with Ploy',
      'Top 10 luk thung hits this week',
      'Street drummers of Yaowarat',
    ],
  ],
  [
    'Siam Drama Club',
    'DRAMA',
    'NEW',
    [
      'Love in Chiang Mai episode 1',
      'Love in Chiang Mai episode 2',
      'The Silent Temple trailer',
      'Cast interview: The Silent Temple',
      'Office Hearts finale',
      'Bloopers from Office Hearts',
    ],
  ],
  [
    'Weekend Variety',
    'VARIETY',
    'UPDATE',
    [
      'Guess the song challenge',
      'Celebrity cooking battle',
      'Prank call marathon',
      'Talent night semi-final',
      'Karaoke king returns',
      'Behind the scenes of Talent night',
    ],
  ],
  [
    'Muay Thai Arena',
    'SPORTS',
    'UPDATE',
    [
      'Muay Thai championship highlights',
      'Training day with a champion',
      'Knockout of the month',
      'Football: Bangkok derby recap',
      'Takraw tricks slow motion',
      'Marathon morning in Lumphini Park',
    ],
  ],
  [
    'Street Food Trails',
    'FOOD',
    'NEW',
    [
      'Best pad thai in Bangkok',
      'Night market tour in Chiang Mai',
      'Mango sticky rice three ways',
      'Floating market breakfast',
      'Spicy som tam challenge',
      'Island seafood road trip',
    ],
  ],
  [
    'Gadget Lab TH',
    'TECH',
    'UPDATE',
    [
      'Smart lamp teardown',
      'BLE thermostat review',
      'Building a sensor board at home',
      'Phone camera night test',
      'Five gadgets under 500 baht',
      'Unboxing the new drone',
    ],
  ],
  [
    'River Stories',
    'DRAMA',
    'UPDATE',
    [
      'River Stories episode 1: the ferry',
      'River Stories episode 2: the storm',
      'River Stories director commentary',
      'Making of the floating set',
    ],
  ],
  [
    'Chill Cafe Music',
    'MUSIC',
    'NEW',
    [
      'Lo-fi beats for rainy Bangkok',
      'Piano covers of Thai pop',
      'Jazz night at the rooftop',
      'Morning guitar session',
    ],
  ],
];

/** A stable pseudo-random number for a key, within [min, max). */
function figure(key: string, min: number, max: number): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return min + ((h >>> 0) % (max - min));
}

export interface CatalogueClip extends Clip {
  categoryCode: string;
  channelId: string;
}

export const CHANNELS: (VideoChannel & { categoryCode: string })[] = CHANNEL_DATA.map(
  ([name, categoryCode, badgeType], i) => {
    const channelId = `ch${1001 + i}`;
    return {
      channelId,
      channelName: name,
      thumbnailUrl: thumbnailDataUrl('channel', channelId, name),
      serviceUrl: `${SERVICE}/channel/${channelId}`,
      badgeType,
      channelEmblem: thumbnailDataUrl('emblem', channelId, name),
      categoryCode,
    };
  },
);

export const CLIPS: CatalogueClip[] = CHANNEL_DATA.flatMap(([, categoryCode, , titles], c) =>
  titles.map((clipTitle, t) => {
    const clipNo = 500_000 + c * 100 + t;
    const seconds = figure(`len${clipNo}`, 45, 3600);
    return {
      clipNo,
      clipTitle,
      likeitPoint: figure(`like${clipNo}`, 10, 90_000),
      playCount: figure(`play${clipNo}`, 1_000, 5_000_000),
      displayPlayTime: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`,
      thumbnailUrl: thumbnailDataUrl('clip', clipNo, clipTitle),
      serviceUrl: `${SERVICE}/v/${clipNo}`,
      categoryCode,
      channelId: `ch${1001 + c}`,
    };
  }),
);

/** Public shape of a clip: what the API returns, without the catalogue's own keys. */
export function publicClip({ categoryCode: _c, channelId: _ch, ...clip }: CatalogueClip): Clip {
  return clip;
}
export function publicChannel({
  categoryCode: _c,
  ...channel
}: (typeof CHANNELS)[number]): VideoChannel {
  return channel;
}

export const BY_POPULARITY = [...CLIPS].sort((a, b) => b.playCount - a.playCount);

const PLAYLIST_DATA: [string, (clip: CatalogueClip) => boolean][] = [
  ['Weekend binge: drama', (c) => c.categoryCode === 'DRAMA'],
  ['Music for work', (c) => c.categoryCode === 'MUSIC'],
  ['Eat your way through Thailand', (c) => c.categoryCode === 'FOOD'],
  ['Fight night', (c) => c.categoryCode === 'SPORTS'],
  ['Maker corner', (c) => c.categoryCode === 'TECH'],
];

export const PLAYLISTS: (Playlist & { clips: CatalogueClip[] })[] = PLAYLIST_DATA.map(
  ([playlistTitle, pick], i) => {
    const playlistNo = 7000 + i;
    const clips = CLIPS.filter(pick);
    return {
      clipCount: clips.length,
      playlistNo,
      thumbnailUrl: thumbnailDataUrl('playlist', playlistNo, playlistTitle),
      playlistTitle,
      serviceUrl: `${SERVICE}/playlist/${playlistNo}`,
      clips,
    };
  },
);

const STATION_DATA: [string, string, string[]][] = [
  ['Music Station', 'Every beat from Bangkok and beyond', ['MUSIC']],
  ['Drama Station', 'Series, trailers and the people who make them', ['DRAMA']],
  ['Lifestyle Station', 'Food, travel, sport and gadgets', ['FOOD', 'SPORTS', 'TECH', 'VARIETY']],
];

export const STATIONS: Station[] = STATION_DATA.map(([stationName, stationDesc, categories], i) => {
  const stationId = `st${301 + i}`;
  const clips = BY_POPULARITY.filter((c) => categories.includes(c.categoryCode));
  const channels = CHANNELS.filter((c) => categories.includes(c.categoryCode));
  const byPlays = (id: string) =>
    clips.filter((c) => c.channelId === id).reduce((n, c) => n + c.playCount, 0);
  return {
    stationId,
    stationName,
    stationDesc,
    stationLogo: thumbnailDataUrl('station', stationId, stationName),
    stationBigBanner: thumbnailDataUrl('banner', `${stationId}-big`, stationName),
    playCount: clips.reduce((n, c) => n + c.playCount, 0),
    likeitCount: clips.reduce((n, c) => n + c.likeitPoint, 0),
    fanCount: figure(`fans${stationId}`, 10_000, 900_000),
    clipCount: clips.length,
    channelCount: channels.length,
    popularClip: clips.slice(0, 5).map(publicClip),
    popularChannel: [...channels]
      .sort((a, b) => byPlays(b.channelId) - byPlays(a.channelId))
      .map(publicChannel),
    stationBanner: {
      thumbnailUrl: thumbnailDataUrl('banner', stationId, `${stationName}: this week`),
      linkUrl: `${SERVICE}/station/${stationId}`,
    },
  };
});

/** Thailand time, as a Thai video service would write it. */
function thaiTime(ms: number): string {
  return new Date(ms + 7 * 3_600_000).toISOString().replace(/\.\d+Z$/, '+07:00');
}

const HOUR = 3_600_000;
/** [title, channel index, start offset from now in hours, length in hours] per status. */
const LIVE_DATA: Record<(typeof LIVE_STATUSES)[number], [string, number, number, number]> = {
  NOT_AVAILABLE_LIVE: ['Cancelled: rooftop jazz', 7, -30, 2],
  UPCOMING: ['Muay Thai title fight live', 3, 5, 3],
  LIVE: ['Sunset Session live now', 0, -1, 3],
  PREPARE_CLIP: ['Talent night final (replay coming)', 2, -4, 2],
  LIVE_END: ['Night market walk live', 4, -26, 1],
  MOVE_TO_CLIP: ['Love in Chiang Mai premiere', 1, -50, 2],
  BLOCK: ['Unboxing stream (blocked)', 5, -10, 1],
};

export function liveSchedule(now: number): Live[] {
  return LIVE_STATUSES.map((liveStatus, i) => {
    const [liveTitle, channel, startH, lengthH] = LIVE_DATA[liveStatus];
    const liveNo = String(90_000 + i);
    const start = Math.floor(now / HOUR) * HOUR + startH * HOUR;
    return {
      serviceUrl: `${SERVICE}/live/${liveNo}`,
      channelName: (CHANNELS[channel] as VideoChannel).channelName,
      playCount: String(liveStatus === 'UPCOMING' ? 0 : figure(`lplay${liveNo}`, 500, 400_000)),
      liveTitle,
      thumbnailUrl: thumbnailDataUrl('live', liveNo, liveTitle),
      liveNo,
      liveStatus,
      liveStartDate: thaiTime(start),
      liveEndDate: thaiTime(start + lengthH * HOUR),
      likeitPoint: String(liveStatus === 'UPCOMING' ? 0 : figure(`llike${liveNo}`, 10, 50_000)),
    };
  });
}
