import { expect } from 'chai';
import { groupThousands } from '../core/grouping.ts';

describe('thousands grouping', () => {
  it('groups the digits of whole numbers by three, as en-US writes them', () => {
    const cases: [number, string][] = [
      [0, '0'],
      [7, '7'],
      [999, '999'],
      [1000, '1,000'],
      [12345, '12,345'],
      [1234567, '1,234,567'],
      [100000000, '100,000,000'],
      [-1234, '-1,234'],
    ];
    for (const [n, text] of cases) {
      expect(groupThousands(n), String(n)).to.equal(text);
      expect(groupThousands(n), String(n)).to.equal(n.toLocaleString('en-US'));
    }
  });
});
