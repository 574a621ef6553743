import { expect } from 'chai';
import { newId } from '../db/ids.ts';

describe('ids', () => {
  it('are 16 letters and digits, so none begins with a dash', () => {
    const ids = Array.from({ length: 5000 }, newId);
    for (const id of ids) expect(id).to.match(/^[0-9A-Za-z]{16}$/);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('use the whole alphabet in every position', () => {
    const seen = new Set(Array.from({ length: 5000 }, () => newId()[0]));
    expect(seen.size).to.equal(62);
  });
});
