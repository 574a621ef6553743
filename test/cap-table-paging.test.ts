import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

const ROUNDS = 300;

interface Page {
  count: number;
  page: number;
  per_page: number;
  has_more: boolean;
  results: { id: string; name: string }[];
}

for (const dialect of dialects) {
  describe(`cap-table tools page like every list (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;

    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await client.callTool({ name, arguments: args });
      return res as unknown as { isError?: boolean; structuredContent: Page; content: { text: string }[] };
    };

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      const money = (value: string) => ({ value, currency: 'USD', fx_rate: null, is_custom_rate: null });
      // 300 rounds of one company, one a day, so closing-date order is the round number.
      const rounds = Array.from({ length: ROUNDS }, (_, i) => ({
        id: newId(),
        company_id: fx.companies.acme.id,
        name: `Round ${String(i + 1).padStart(3, '0')}`,
        closing_date: new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10),
        pre_money: money('1000000'),
        round_size: money(String(1000 + i)),
        round_size_converted_value: null,
        fully_diluted_shares: null,
        is_crypto: false,
        liquidation_multiple: null,
        cap_multiple: null,
        seniority_position: null,
        participation_type: null,
        created_at: '2026-01-01T00:00:00.000Z',
        co_investors: [],
        pari_passu_ids: [],
      }));
      await fx.repos.capTable.addFinancings(fx.firmA.id, rounds);
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    it('reaches the 300th of 300 financing rounds through get_financing_events paging', async () => {
      const seen: string[] = [];
      let page = 1;
      for (;;) {
        const res = await call('get_financing_events', {
          company_ids: [fx.companies.acme.id],
          page,
          per_page: 100,
        });
        expect(res.isError ?? false).to.equal(false);
        const body = res.structuredContent;
        expect(body.count).to.equal(ROUNDS);
        expect(body.page).to.equal(page);
        expect(body.per_page).to.equal(100);
        seen.push(...body.results.map((r) => r.name));
        if (!body.has_more) break;
        page += 1;
      }
      expect(page).to.equal(3);
      expect(seen).to.have.length(ROUNDS);
      expect(new Set(seen).size).to.equal(ROUNDS);
      expect(seen.at(-1)).to.equal('Round 300');
    });

    it('pages a sorted read over every row, not within a page', async () => {
      const res = await call('get_financing_events', {
        company_ids: [fx.companies.acme.id],
        sort_by: '-closing_date',
        page: 2,
        per_page: 7,
      });
      expect(res.structuredContent.results.map((r) => r.name)[0]).to.equal('Round 293');
      expect(res.structuredContent.has_more).to.equal(true);
    });

    it('accepts page and per_page on all four cap-table reads and says has_more', async () => {
      for (const name of [
        'get_share_classes',
        'get_financing_events',
        'get_transactions',
        'get_securities',
      ]) {
        const res = await call(name, { page: 1, per_page: 1 });
        expect(res.isError ?? false, `${name}: ${res.content[0]?.text}`).to.equal(false);
        expect(res.structuredContent).to.include.keys('count', 'page', 'per_page', 'has_more', 'results');
        expect(res.structuredContent.results.length).to.be.at.most(1);
        expect(res.structuredContent.has_more).to.equal(res.structuredContent.count > 1);
      }
    });

    it('answers a page past the last with an error naming the last page', async () => {
      const res = await call('get_financing_events', {
        company_ids: [fx.companies.acme.id],
        page: 4,
        per_page: 100,
      });
      expect(res.isError).to.equal(true);
      expect(res.content[0]!.text).to.match(/past the last page \(3\)/);
    });

    it('keeps the reference REST route answering every round as a bare array', async () => {
      const res = await api(server.url, '/beta/investment/financing-events/get/', {
        token: fx.admin.rest,
        method: 'POST',
        body: { company_ids: [fx.companies.acme.id] },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.be.an('array').with.length(ROUNDS);
    });
  });
}
