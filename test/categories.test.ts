import { expect } from 'chai';
import { CustomMetricNames, editDistance, nearestName, parseChoices } from '../core/categories.ts';

describe('category names', () => {
  it('measures edit distance without regard to case', () => {
    expect(editDistance('revnue', 'revenue')).to.equal(1);
    expect(editDistance('EBITDA', 'ebitda')).to.equal(0);
    expect(editDistance('', 'arr')).to.equal(3);
    expect(editDistance('kitten', 'sitting')).to.equal(3);
  });

  it('names the nearest candidate and its distance, the first one on a tie', () => {
    expect(nearestName('casj_in_bank', ['arr', 'cash_in_bank', 'revenue'])).to.deep.equal({
      name: 'cash_in_bank',
      distance: 1,
    });
    expect(nearestName('ab', ['ax', 'xb'])).to.deep.equal({ name: 'ax', distance: 1 });
    expect(nearestName('anything', [])).to.equal(undefined);
  });

  it('finds a custom metric by its exact name, else by the one name that differs only in case', () => {
    const names = new CustomMetricNames<{ name: string; id: string }>();
    names.add({ name: 'NPS', id: 'a' });
    names.add({ name: 'Plan Tier', id: 'b' });
    names.add({ name: 'plan tier', id: 'c' });
    expect(names.find('NPS')?.id).to.equal('a');
    expect(names.find('nps')?.id).to.equal('a');
    expect(names.find('plan tier')?.id).to.equal('c');
    expect(names.find('PLAN TIER')).to.equal(undefined);
    expect(names.find('Churn')).to.equal(undefined);
    expect(names.names()).to.deep.equal(['NPS', 'Plan Tier', 'plan tier']);
    expect(names.rows().map((r) => r.id)).to.deep.equal(['a', 'b', 'c']);
  });

  it('reads the stored choices of a select metric, and none from anything else', () => {
    expect(parseChoices('["Free","Pro",3]')).to.deep.equal(['Free', 'Pro', '3']);
    for (const none of [null, undefined, '', 'not json', '{"a":1}', 42]) {
      expect(parseChoices(none), String(none)).to.deep.equal([]);
    }
  });
});
