import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { registry } from '../tools/registry.ts';
import { boundResult, MAX_RESULT_CHARS, type Truncation, truncateText } from '../tools/truncate.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

/** A tool that pages, and one that does not. */
const lister = (name: string) => ({ name, params: ['page', 'per_page'] });
const reader = (name: string) => ({ name, params: ['company_id'] });

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
      const bounded = boundResult(value, lister('list_things'));
      expect(bounded.structuredContent).to.equal(value);
      expect(bounded.content).to.deep.equal([{ type: 'text', text: JSON.stringify(value) }]);
    });

    it('cuts long text fields first, with the marker, to stay under the limit', () => {
      const results = Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, note: 'x'.repeat(20_000) }));
      const value = { count: 20, page: 1, per_page: 20, has_more: false, results };
      const bounded = boundResult(value, lister('list_notes'));
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
      const bounded = boundResult(value, lister('get_company_metrics'));
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
      const bounded = boundResult({ count: 200, results }, reader('get_company_recent_metrics'));
      expect(bounded.structuredContent).to.not.have.property('has_more');
      expect(size(bounded.structuredContent)).to.be.at.most(MAX_RESULT_CHARS);
    });

    it('shortens the longest array of a result that is not a list', () => {
      const points = Array.from({ length: 5_000 }, (_, i) => ({ month: i, value: '123456.78' }));
      const bounded = boundResult({ series: { revenue: { points } } }, reader('get_company_performance'));
      const out = bounded.structuredContent as { series: { revenue: { points: unknown[] } } };
      expect(size(out)).to.be.at.most(MAX_RESULT_CHARS);
      expect(out.series.revenue.points.length).to.be.lessThan(5_000);
      expect(bounded.content[1]!.text).to.contain('series.revenue.points');
      expect(points).to.have.length(5_000);
    });

    it('says in the structured content that a list was cut, with the page that continues it', () => {
      const results = Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, text: 'y'.repeat(1_500) }));
      const value = { count: 250, page: 2, per_page: 100, has_more: true, results };
      const out = boundResult(value, lister('get_company_metrics')).structuredContent as typeof value & {
        truncated: Truncation;
      };
      const kept = out.results.length;
      expect(out.truncated.returned).to.equal(kept);
      expect(out.truncated.omitted).to.equal(100 - kept);
      const next = out.truncated.next!;
      expect((next.page - 1) * next.per_page).to.equal(100 + kept);
      expect(out.truncated.advice).to.contain(`per_page=${next.per_page} and page=${next.page}`);
      expect(size(out)).to.be.at.most(MAX_RESULT_CHARS);
    });

    it('says so in the structured content when only long texts were cut', () => {
      const results = Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, note: 'x'.repeat(20_000) }));
      const out = boundResult(
        { count: 20, page: 1, per_page: 20, has_more: false, results },
        lister('list_notes'),
      ).structuredContent as { truncated: Truncation };
      expect(out.truncated).to.include({ returned: 20, omitted: 0, next: null });
    });

    it('gives every tool advice that names only its own parameters and existing tools', () => {
      const names = new Set(registry.map((t) => t.name));
      const longList = {
        count: 500,
        page: 1,
        per_page: 100,
        has_more: true,
        results: Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, text: 'q'.repeat(30_000) })),
      };
      const longSeries = {
        series: Array.from({ length: 5_000 }, (_, i) => ({ month: i, note: 'w'.repeat(50) })),
      };
      for (const tool of registry) {
        const params = Object.keys(tool.input.shape);
        for (const value of [longList, longSeries]) {
          const bounded = boundResult(structuredClone(value), { name: tool.name, params });
          const out = bounded.structuredContent as { truncated: Truncation };
          const advice = [
            out.truncated.advice,
            ...bounded.content.slice(1).map((c) => c.text),
            JSON.stringify(out),
          ].join(' ');
          for (const [, word] of advice.matchAll(/\b(page|per_page)=/g))
            expect(params, `${tool.name}: ${word}`).to.include(word);
          if (/smaller per_page/.test(advice)) expect(params, tool.name).to.include('per_page');
          for (const [called] of advice.matchAll(/\b(?:get|list|search|update|add)_[a-z_]+/g))
            expect(names.has(called), `${tool.name} advises ${called}`).to.equal(true);
          if (!params.includes('page')) expect(out.truncated.next, tool.name).to.equal(null);
        }
      }
    });
  });
});

for (const dialect of dialects) {
  describe(`a cut MCP result says so in its structured content (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      // 100 notes of 3,000 characters: one page of them is far over the answer limit.
      await t.db('notes').insert(
        Array.from({ length: 100 }, (_, i) => ({
          id: newId(),
          firm_id: fx.firmA.id,
          company_id: fx.companies.acme.id,
          author_id: fx.admin.user.id,
          note: `note ${String(i).padStart(3, '0')} ${'n'.repeat(3000)}`,
          created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        })),
      );
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    it('pages on from structuredContent.truncated.next and reaches every note exactly once', async () => {
      const seen = new Set<string>();
      let args: Record<string, unknown> = { company_id: fx.companies.acme.id, page: 1, per_page: 100 };
      let cuts = 0;
      for (let calls = 0; calls < 20; calls++) {
        const res = (await client.callTool({ name: 'list_notes', arguments: args })) as unknown as {
          structuredContent: { has_more: boolean; results: { id: string }[]; truncated?: Truncation };
        };
        const out = res.structuredContent;
        for (const note of out.results) {
          expect(seen.has(note.id)).to.equal(false);
          seen.add(note.id);
        }
        if (out.truncated) {
          cuts += 1;
          expect(out.truncated.returned).to.equal(out.results.length);
        }
        if (out.truncated?.next) {
          expect(out.has_more).to.equal(true);
          args = { company_id: fx.companies.acme.id, ...out.truncated.next };
        } else if (out.has_more) {
          args = { ...args, page: (args.page as number) + 1 };
        } else break;
      }
      expect(cuts).to.be.greaterThan(0);
      expect(seen.size).to.equal(100);
    });
  });
}
