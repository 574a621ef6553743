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
});
