// One station's picks: a value held by one try is refused to the others until that try ends,
// what the others hold is visible to each, and how many are picking is counted per product.
import { describe, expect, it } from 'vitest';
import { StationPicks } from '../../../src/core/audit/station-picks';

describe('StationPicks', () => {
  it('holds a value for one try until it ends, and shows it to the others meanwhile', () => {
    const picks = new StationPicks();
    const a = picks.begin('p');
    const b = picks.begin('p');
    expect(a.hold('L-1')).toBe(true);
    expect(a.hold('L-1')).toBe(true);
    expect(b.hold('L-1')).toBe(false);
    expect([...b.heldByOthers()]).toEqual(['L-1']);
    expect([...a.heldByOthers()]).toEqual([]);
    a.end();
    expect(b.hold('L-1')).toBe(true);
    expect([...b.heldByOthers()]).toEqual([]);
  });

  it('counts the tries picking for a product, apart from other products', () => {
    const picks = new StationPicks();
    const a = picks.begin('p');
    const b = picks.begin('p');
    const other = picks.begin('q');
    expect(a.contenders()).toBe(2);
    expect(other.contenders()).toBe(1);
    expect(other.hold('L-1')).toBe(true);
    expect(a.hold('L-1')).toBe(true);
    b.end();
    // Ending twice gives back nothing more.
    b.end();
    expect(a.contenders()).toBe(1);
  });
});
