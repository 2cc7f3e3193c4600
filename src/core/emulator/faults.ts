// Fault injection: the next N platform requests (optionally only under a path prefix) answer
// an error status or arrive late, so clients' retry and error paths can be exercised.
import type { z } from 'zod';
import type { Fault, faultInputSchema } from './schema';

const STATUS_BODIES: Record<number, string> = {
  429: 'The API rate limit has been exceeded. Try again later.',
  500: 'An error occurred in the API server.',
  503: 'The API server is temporarily unavailable.',
};

export class Faults {
  private queue: Fault[] = [];
  private nextId = 1;

  add(input: z.output<typeof faultInputSchema>): Fault {
    const fault = { ...input, id: this.nextId++, remaining: input.count };
    this.queue.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.queue.map((f) => ({ ...f }));
  }

  clear(): void {
    this.queue = [];
  }

  /** Consumes the first fault that applies to this path, if any. */
  take(path: string): Fault | undefined {
    const fault = this.queue.find((f) => !f.pathPrefix || path.startsWith(f.pathPrefix));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.queue = this.queue.filter((f) => f !== fault);
    return fault;
  }
}

export function faultBody(status: number): { message: string } {
  return { message: STATUS_BODIES[status] ?? 'Injected fault.' };
}
