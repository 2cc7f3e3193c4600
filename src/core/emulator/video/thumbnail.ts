// Thumbnails of the emulated video catalogue: small SVGs as data: URLs, so the catalogue needs
// no image host and a renderer under `img-src 'self' data:` shows them exactly as served.
// Browser-safe.

export type ThumbnailKind =
  'clip' | 'channel' | 'emblem' | 'playlist' | 'station' | 'banner' | 'live';

const SIZES: Record<ThumbnailKind, [number, number]> = {
  clip: [320, 180],
  channel: [320, 180],
  emblem: [96, 96],
  playlist: [320, 180],
  station: [160, 160],
  banner: [640, 160],
  live: [320, 180],
};

/** A stable number from a string, so a thing's colours never change between calls. */
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function thumbnailDataUrl(kind: ThumbnailKind, id: string | number, title: string): string {
  const [w, h] = SIZES[kind];
  const hue = hash(`${kind}:${id}`) % 360;
  const from = `hsl(${hue},62%,46%)`;
  const to = `hsl(${(hue + 48) % 360},70%,28%)`;
  const label = escapeXml(title.length > 28 ? `${title.slice(0, 27)}…` : title);
  const round = kind === 'emblem' ? ` rx="${w / 2}"` : ' rx="8"';
  const play =
    kind === 'clip' || kind === 'live'
      ? `<circle cx="${w / 2}" cy="${h / 2 - 10}" r="22" fill="rgba(0,0,0,.35)"/><path d="M${w / 2 - 7} ${h / 2 - 22}v24l20-12z" fill="#fff"/>`
      : '';
  const text =
    kind === 'emblem'
      ? `<text x="50%" y="58%" font-size="34" text-anchor="middle" fill="#fff" font-family="sans-serif">${escapeXml(title.slice(0, 1))}</text>`
      : `<text x="12" y="${h - 14}" font-size="${kind === 'banner' ? 24 : 16}" fill="#fff" font-family="sans-serif">${label}</text>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>` +
    `<rect width="${w}" height="${h}"${round} fill="url(#g)"/>${play}${text}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
