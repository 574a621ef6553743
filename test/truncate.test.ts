import { expect } from 'chai';
import { boundResult, MAX_RESULT_CHARS, truncateText } from '../tools/truncate.ts';

const size = (v: unknown) => JSON.stringify(v).length;

describe('bounded tool results', () => {
  describe('truncateText', () => {
    it('leaves a text that fits unchanged', () => {
      expect(truncateText('short', 5, 'hint')).to.equal('short');
    });

    it('cuts a long text with a marker that says how much is missing and how to read it', () => {
      const text = 'a'.repeat(7321);
      expect(truncateText(text, 2000, 'call list_notes with company_id=c1 to read the full note')).to.equal(
        `${'a'.repeat(2000)}… [truncated: 5,321 more characters; call list_notes with company_id=c1 to read the full note]`,
      );
    });

    it('never splits a surrogate pair', () => {
      const cut = truncateText(`ab😀cd`, 3, 'hint');
      expect(cut.startsWith('ab…')).to.equal(true);
      expect(cut).to.contain('4 more characters');
    });
  });

  describe('boundResult', () => {
    it('passes a small result through as structured content plus the same JSON as text', () => {
      const value = { count: 1, page: 1, per_page: 100, has_more: false, results: [{ id: 'a' }] };
      const bounded = boundResult(value, 'list_things');
      expect(bounded.structuredContent).to.equal(value);
      expect(bounded.content).to.deep.equal([{ type: 'text', text: JSON.stringify(value) }]);
    });

    it('cuts long text fields first, with the marker, to stay under the limit', () => {
      const results = Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, note: 'x'.repeat(20_000) }));
      const value = { count: 20, page: 1, per_page: 20, has_more: false, results };
      const bounded = boundResult(value, 'list_notes');
      const out = bounded.structuredContent as typeof value;
      expect(size(out)).to.be.at.most(MAX_RESULT_CHARS);
      expect(out.results).to.have.length(20);
      expect(out.results[0]!.note).to.match(/… \[truncated: [\d,]+ more characters; call list_notes/);
      expect(out.has_more).to.equal(false);
      expect(bounded.content[0]!.text).to.equal(JSON.stringify(out));
      expect(bounded.content[1]!.text).to.match(/Long text fields were cut/);
      expect(value.results[0]!.note).to.have.length(20_000);
    });

    it('drops trailing results with has_more and tells the model which smaller page to ask for', () => {
      const results = Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, text: 'y'.repeat(1_500) }));
      const value = { count: 250, page: 2, per_page: 100, has_more: true, results };
      const bounded = boundResult(value, 'get_company_metrics');
      const out = bounded.structuredContent as typeof value;
      expect(size(out)).to.be.at.most(MAX_RESULT_CHARS);
      const kept = out.results.length;
      expect(kept).to.be.greaterThan(50).and.lessThan(100);
      expect(out.results[kept - 1]!.id).to.equal(`m${kept - 1}`);
      expect(out.has_more).to.equal(true);
      expect(out.count).to.equal(250);
      const notice = bounded.content[1]!.text;
      const match = /per_page=(\d+) and page=(\d+)/.exec(notice);
      expect(match, notice).to.not.equal(null);
      const [perPage, page] = [Number(match![1]), Number(match![2])];
      // The suggested page starts exactly at the first item left out.
      expect((page - 1) * perPage).to.equal(100 + kept);
      expect(perPage).to.be.at.most(kept);
    });

    it('adds has_more only to results that have it', () => {
      const results = Array.from({ length: 200 }, (_, i) => ({ id: `r${i}`, text: 'z'.repeat(1_000) }));
      const bounded = boundResult({ count: 200, results }, 'get_company_recent_metrics');
      expect(bounded.structuredContent).to.not.have.property('has_more');
      expect(size(bounded.structuredContent)).to.be.at.most(MAX_RESULT_CHARS);
    });

    it('shortens the longest array of a result that is not a list', () => {
      const points = Array.from({ length: 5_000 }, (_, i) => ({ month: i, value: '123456.78' }));
      const bounded = boundResult({ series: { revenue: { points } } }, 'get_company_performance');
      const out = bounded.structuredContent as { series: { revenue: { points: unknown[] } } };
      expect(size(out)).to.be.at.most(MAX_RESULT_CHARS);
      expect(out.series.revenue.points.length).to.be.lessThan(5_000);
      expect(bounded.content[1]!.text).to.contain('series.revenue.points');
      expect(points).to.have.length(5_000);
    });
  });
});
