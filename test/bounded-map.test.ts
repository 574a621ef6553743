import { expect } from 'chai';
import { BoundedMap } from '../core/bounded-map.ts';

describe('BoundedMap (the caches of principals, list totals and SQLite statements)', () => {
  it('drops the entry used least recently once it holds its limit', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).to.equal(1);
    map.set('c', 3);
    expect([map.get('a'), map.get('b'), map.get('c')]).to.deep.equal([1, undefined, 3]);
  });

  it('replaces a value without dropping another entry', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    expect([map.get('a'), map.get('b')]).to.deep.equal([10, 2]);
  });

  it('drops the least recently used once more than half full, whatever the order of insertion', () => {
    const map = new BoundedMap<string, number>(4);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    map.set('d', 4);
    expect(map.get('a')).to.equal(1);
    expect(map.get('b')).to.equal(2);
    map.set('e', 5);
    map.set('f', 6);
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => map.get(k))).to.deep.equal([
      1,
      2,
      undefined,
      undefined,
      5,
      6,
    ]);
  });
});
