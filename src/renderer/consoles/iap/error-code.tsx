// The in-app purchase server's `errorCode`, read from a failed call's platform body.
import { AppError } from '../../../core/app/api';

export function ErrorCode({ error }: { error: unknown }) {
  const body = error instanceof AppError ? error.body : undefined;
  const code =
    body && typeof body === 'object' && 'errorCode' in body && typeof body.errorCode === 'string'
      ? body.errorCode
      : undefined;
  return code ? (
    <p className="badge bad" data-testid="iap-error-code">
      {code}
    </p>
  ) : null;
}
