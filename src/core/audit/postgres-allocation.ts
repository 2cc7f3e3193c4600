// What an allocator may ask the line's PostgreSQL log while it picks a PSDI: each question one
// statement, so stations never wait on each other's transactions (docs/decisions.md,
// "Production line", "Reservations fast again").
import type pg from 'pg';
import { STATION } from './postgres-dialect';
import type { PickAttempt } from './station-picks';
import type { AllocationContext } from './store';

/**
 * The allocator's questions for one try of a reservation (`attempt`; none for a preview):
 * values this station's other reservations hold are left out, and a list value is held for
 * this try as it is answered, so two of them never get the same one. Numbers are taken on
 * `counters`, the pool that does not wait for the WAL flush (openPools).
 */
export function postgresAllocationContext(
  pools: { pool: pg.Pool; counters: pg.Pool },
  productId: string,
  attempt?: PickAttempt,
): AllocationContext {
  const { pool, counters } = pools;
  const heldElsewhere = () => attempt?.heldByOthers() ?? new Set<string>();
  return {
    productId,
    wasRecorded: async (psdi) =>
      (await pool.query(STATION.wasRecorded, [productId, psdi])).rowCount !== 0,
    returned: async () => {
      const { rows } = await pool.query<{ psdi: string }>(STATION.returned, [productId]);
      const held = heldElsewhere();
      return rows.map((r) => r.psdi).filter((psdi) => !held.has(psdi));
    },
    // One statement: the row lock lasts only as long as the upsert, so stations taking numbers
    // at once queue for microseconds, not for each other's reservations.
    takeNumber: async (key, start) => {
      const { rows } = await counters.query<{ n: string }>(
        `INSERT INTO psdi_counters (product_id, key, value) VALUES ($1, $2, $3::bigint + 1)
         ON CONFLICT (product_id, key)
           DO UPDATE SET value = GREATEST(psdi_counters.value, $3::bigint) + 1
         RETURNING value - 1 AS n`,
        [productId, key, start],
      );
      return Number((rows[0] as { n: string }).n);
    },
    // As many free values as this station has reservations picking, so each can hold its own
    // from one answer; asked again only if the others held them all in the meantime.
    firstFree: async (values) => {
      for (;;) {
        const held = heldElsewhere();
        const { rows } = await pool.query<{ psdi: string }>(
          `SELECT v.psdi FROM unnest($2::text[]) WITH ORDINALITY AS v(psdi, i)
           WHERE NOT EXISTS (SELECT 1 FROM provisioning_records r
             WHERE r.product_id = $1 AND r.psdi = v.psdi AND r.psdi_held = 1)
           ORDER BY v.i LIMIT $3`,
          [productId, values.filter((psdi) => !held.has(psdi)), attempt?.contenders() ?? 1],
        );
        if (!attempt || rows.length === 0) return rows[0]?.psdi;
        const mine = rows.find((r) => attempt.hold(r.psdi));
        if (mine) return mine.psdi;
      }
    },
  };
}
