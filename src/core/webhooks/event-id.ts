// Webhook event IDs, shared by every area that sends events so they all look the same.
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (26 characters, time-ordered), the form the platform's webhook event IDs take. */
export function webhookEventId(now: number): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const random = [...randomBytes(16)].map((b) => CROCKFORD[b % 32]).join('');
  return time + random;
}
