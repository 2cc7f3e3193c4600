// What a page or panel shows when its data would not load: the error and a way to try again.
import { ErrorNotice } from './ErrorNotice';

export function LoadFailure({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <>
      <ErrorNotice error={error} />
      <button type="button" onClick={onRetry}>
        Try again
      </button>
    </>
  );
}
