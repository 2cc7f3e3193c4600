// A catalogue image as the user would see it. The app's CSP allows only `data:` images: the
// emulator serves its thumbnails that way; any other URL gets a placeholder naming its host.
export function Thumbnail({
  src,
  alt,
  round = false,
}: {
  src: string;
  alt: string;
  round?: boolean;
}) {
  if (src.startsWith('data:image/'))
    return <img className={`video-thumb${round ? ' round' : ''}`} src={src} alt={alt} />;
  let host = src;
  try {
    host = new URL(src).host;
  } catch {
    // not a URL: show it as given
  }
  return (
    <span className="video-thumb placeholder" role="img" aria-label={alt} title={src}>
      {host}
    </span>
  );
}
