// Display helpers: the article a number takes as it is read aloud.
import { describe, expect, it } from 'vitest';
import { articleFor } from '../../../src/renderer/lib/format';

describe('articleFor', () => {
  it('says "an" before numbers read with a vowel sound, "a" before the rest', () => {
    for (const n of ['8', '8.5', '11', '18', '80', '800', '11000', '18500'])
      expect(articleFor(n)).toBe('an');
    for (const n of ['2', '10', '30', '110', '180', '1100', '0.8']) expect(articleFor(n)).toBe('a');
  });
});
