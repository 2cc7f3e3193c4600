// Clips as a grid of cards: thumbnail, title, length, plays and likes.
import type { Clip } from '../../../core/platform/video/schema';
import { Thumbnail } from './Thumbnail';

export function ClipGrid({ clips, label }: { clips: Clip[]; label: string }) {
  if (clips.length === 0) return <p className="note empty">No clips.</p>;
  return (
    <ul className="video-grid" aria-label={label}>
      {clips.map((clip) => (
        <li key={clip.clipNo} className="video-card" data-testid="video-clip">
          <Thumbnail src={clip.thumbnailUrl} alt={clip.clipTitle} />
          <span className="video-length">{clip.displayPlayTime}</span>
          <strong className="video-title">{clip.clipTitle}</strong>
          <span className="muted">
            {clip.playCount.toLocaleString()} plays · {clip.likeitPoint.toLocaleString()} likes · #
            {clip.clipNo}
          </span>
        </li>
      ))}
    </ul>
  );
}
