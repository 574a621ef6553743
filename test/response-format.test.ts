import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { seedDemo } from '../db/seeds/demo.ts';
import { mcpTools } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { type DemoIds, demoIds, resultChars, typicalInputsOf } from './helpers/demo-reads.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

type Json = Record<string, unknown>;
type Answer = Awaited<ReturnType<Client['callTool']>>;

/** What a concise answer may leave out of a row: bookkeeping, never a figure. */
const BOOKKEEPING = [
  'updated_at',
  'deleted_at',
  'detailed_source',
  'archived',
  'is_budget_metric',
  'category_id',
];
/** The firm currency a cap-table answer converts into. */
const firmCurrencyOf = (answer: Json) =>
  ((answer.results as Json[]).find((r) => r.round_size) as { round_size: Json }).round_size
    .converted_currency;
const without = (row: Json, keys: readonly string[]) =>
  Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

for (const dialect of dialects) {
  describe(`response_format on MCP reads, over the demo data (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let server: RunningServer;
    let mcp: Client;
    let ids: DemoIds;

    const call = async (name: string, args: Json): Promise<Answer> => {
      const res = await mcp.callTool({ name, arguments: args });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      return res;
    };
    const both = async (name: string, args: Json) => ({
      concise: (await call(name, args)).structuredContent as Json,
      detailed: (await call(name, { ...args, response_format: 'detailed' })).structuredContent as Json,
    });

    before(async () => {
      t = await dialect.open();
      await seedDemo(t.db);
      server = await startTestServer(t.db);
      ids = await demoIds(t.db);
      mcp = await mcpClient(server.url, ids.token);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('groups metric data into series that keep every value, converted value, currency and date', async () => {
      const { concise, detailed } = await both('get_company_metrics', {
        company_ids: [ids.companyId],
        from_date: '2025-01-01',
        include_budgets: true,
      });
      const results = detailed.results as Json[];
      expect(results.length).to.be.greaterThan(50);
      expect(concise).to.not.have.property('results');
      const key = (d: Json) =>
        JSON.stringify([
          d.company_id,
          d.category,
          d.custom_metric ?? null,
          d.category_type,
          d.cadence,
          d.currency,
          d.budget_id ?? null,
          d.date,
          d.value,
          d.converted_value,
        ]);
      const fromSeries = (concise.series as Json[]).flatMap((s) =>
        (s.rows as (string | null)[][]).map((row) => {
          const cell = (c: string) => row[(s.columns as string[]).indexOf(c)];
          // A series without a converted_value column is in the firm's currency or not money: it converts to itself.
          const converted = (s.columns as string[]).includes('converted_value')
            ? cell('converted_value')
            : cell('value');
          return key({ ...s, date: cell('date'), value: cell('value'), converted_value: converted });
        }),
      );
      expect(fromSeries.sort()).to.deep.equal(results.map(key).sort());
      expect(concise.count).to.equal(detailed.count);
      expect(concise.preferred_currency).to.equal(results[0]!.preferred_currency);
      expect(JSON.stringify(concise).length).to.be.below(JSON.stringify(detailed).length / 4);
    });

    it("answers one company's ARR over 24 months in at most 2,500 characters", async () => {
      const res = await call('get_company_metrics', {
        company_ids: [ids.companyId],
        category: 'arr',
        from_date: '2024-11-01',
        to_date: '2026-10-31',
      });
      const series = (res.structuredContent as { series: { rows: unknown[] }[] }).series;
      expect(series.reduce((n, s) => n + s.rows.length, 0)).to.equal(24);
      expect(resultChars(res)).to.be.at.most(2_500);
      expect(JSON.parse((res.content as { text: string }[])[0]!.text)).to.deep.equal(res.structuredContent);
    });

    it('leaves bookkeeping out of a list and states what every row shares once, keeping every other field', async () => {
      const { concise, detailed } = await both('list_companies', { status: 'active' });
      const same = concise.same_in_every_result as Json;
      expect(same).to.include({ status: 'active' });
      const rebuilt = (concise.results as Json[]).map((row) => ({ ...same, ...row }));
      expect(rebuilt).to.deep.equal((detailed.results as Json[]).map((row) => without(row, BOOKKEEPING)));
      expect(concise.count).to.equal(detailed.count);
    });

    it("names each series' company and each company's investment lead, as list_companies and list_users do", async () => {
      const companies = (await call('list_companies', { response_format: 'detailed' })).structuredContent as {
        results: { id: string; name: string; investment_lead_id: string | null }[];
      };
      const users = (await call('list_users', { response_format: 'detailed' })).structuredContent as {
        results: { id: string; first_name: string; last_name: string; email: string }[];
      };
      const userById = new Map(users.results.map((u) => [u.id, u]));
      const named = companies.results.filter((c) => c.investment_lead_id);
      expect(named.length).to.be.greaterThan(0);
      for (const c of companies.results as (Json & { investment_lead_id: string | null })[]) {
        const lead = c.investment_lead_id ? userById.get(c.investment_lead_id) : undefined;
        expect(c.investment_lead_name, c.id as string).to.equal(
          lead ? `${lead.first_name} ${lead.last_name}` : null,
        );
        expect(c.investment_lead_email, c.id as string).to.equal(lead?.email ?? null);
      }
      const two = companies.results.slice(0, 2);
      const series = (
        (await call('get_company_metrics', { company_ids: two.map((c) => c.id), category: 'revenue' }))
          .structuredContent as { series: { company_id: string; company_name: string }[] }
      ).series;
      expect(series.length).to.be.greaterThan(1);
      const names = new Map(two.map((c) => [c.id, c.name]));
      for (const s of series) expect(s.company_name).to.equal(names.get(s.company_id));
    });

    it('leaves the cash flows out of get_investment_metrics unless include_cash_flows asks for them', async () => {
      const { concise, detailed } = await both('get_investment_metrics', {});
      expect(concise).to.not.have.property('cash_flow_table');
      for (const m of detailed.metrics as Json[]) expect(m).to.not.have.property('cash_flows');
      const withFlows = (await call('get_investment_metrics', { include_cash_flows: true }))
        .structuredContent as Json;
      expect(JSON.stringify(concise).length).to.be.below(JSON.stringify(withFlows).length / 2);
    });

    it('keeps every investment figure and cash flow of get_investment_metrics, the flows in one table', async () => {
      const { concise, detailed } = await both('get_investment_metrics', { include_cash_flows: true });
      const detailedMetrics = detailed.metrics as Json[];
      expect(
        (concise.metrics as Json[]).map((m) => ({ ...m, as_of_date: concise.as_of_date })),
      ).to.deep.equal(detailedMetrics.map((m) => without(m, ['cash_flows'])));
      const table = concise.cash_flow_table as { columns: string[]; rows: unknown[][] };
      const flows = table.rows.map((row) => Object.fromEntries(table.columns.map((c, i) => [c, row[i]])));
      const expected = detailedMetrics.flatMap((m) => m.cash_flows as Json[]);
      expect(expected.every((f) => f.fx_date === f.date)).to.equal(true);
      expect(flows).to.deep.equal(expected.map((f) => without(f, ['fx_date'])));
    });

    it('keeps the cap-table money of get_financing_events, the firm currency stated once', async () => {
      const { concise, detailed } = await both('get_financing_events', {});
      const same = concise.same_in_every_result as Json;
      expect(same.converted_currency).to.be.a('string');
      const put = (money: unknown) =>
        money && typeof money === 'object'
          ? { ...money, converted_currency: same.converted_currency }
          : money;
      const rebuilt = (concise.results as Json[]).map((row) => ({
        ...row,
        pre_money_valuation: put(row.pre_money_valuation),
        post_money_valuation: put(row.post_money_valuation),
        round_size: put(row.round_size),
      }));
      expect(rebuilt).to.deep.equal(
        (detailed.results as Json[]).map((r) => without(r, ['co_investors', 'pari_passu_rounds'])),
      );
      expect(concise.totals).to.deep.equal(detailed.totals);
    });

    it('totals the rounds of get_financing_events in the firm currency over every page, recomputed from the rows', async () => {
      const { detailed } = await both('get_financing_events', {});
      const rows = detailed.results as { round_size: { converted_value: string | null } | null }[];
      const sizes = rows.map((r) => r.round_size?.converted_value ?? null).filter((v) => v !== null);
      expect(sizes.length).to.be.greaterThan(1);
      const cents = (v: string) => Math.round(Number(v) * 100);
      const totals = detailed.totals as Json;
      expect(totals.count).to.equal(rows.length);
      expect(totals.currency).to.equal(firmCurrencyOf(detailed));
      expect(cents(totals.round_size_sum as string)).to.equal(sizes.reduce((n, v) => n + cents(v), 0));
      expect(Number(totals.round_size_max)).to.equal(Math.max(...sizes.map(Number)));
      expect(totals.rounds_without_size).to.equal(rows.length - sizes.length);
      const small = await call('get_financing_events', { per_page: 1 });
      expect((small.structuredContent as Json).totals).to.deep.equal(totals);
      expect(resultChars(small)).to.be.at.most(2_500);
    });

    it('leaves the download link and empty fields out of concise list_documents rows, every other field kept', async () => {
      const { concise, detailed } = await both('list_documents', {});
      const rows = detailed.results as Json[];
      expect(rows.length).to.be.greaterThan(1);
      expect(rows.some((r) => r.information_request_id === '' || r.parsed_at === null)).to.equal(true);
      const same = (concise.same_in_every_result ?? {}) as Json;
      const rebuilt = (concise.results as Json[]).map((row) => ({ ...same, ...row }));
      for (const row of concise.results as Json[]) {
        expect(row).to.not.have.property('link');
        expect(Object.values(row).filter((v) => v === '' || v === null)).to.deep.equal([]);
      }
      expect(rebuilt).to.deep.equal(
        rows.map((r) =>
          Object.fromEntries(Object.entries(r).filter(([k, v]) => k !== 'link' && v !== '' && v !== null)),
        ),
      );
      expect(JSON.stringify(concise).length).to.be.below(JSON.stringify(detailed).length * 0.8);
    });

    it('refuses an unknown response_format naming the field', async () => {
      const res = await mcp.callTool({ name: 'list_funds', arguments: { response_format: 'short' } });
      expect(res.isError).to.equal(true);
      expect((res.content as { text: string }[])[0]!.text).to.contain('response_format');
    });

    it('leaves REST in the detailed shape, whatever the query says', async () => {
      const rest = await api(server.url, '/v1/companies/?response_format=concise', { token: ids.token });
      expect(rest.status).to.equal(200);
      const { detailed } = await both('list_companies', {});
      expect(rest.body.results).to.deep.equal(detailed.results);
    });

    it('keeps every read tool under 25,000 tokens at default page sizes, screen_companies under 10,000 characters', async () => {
      const reads = mcpTools({ writeTools: false }).filter((tool) => tool.annotations.readOnlyHint);
      const inputs = typicalInputsOf(
        ids,
        reads.map((tool) => tool.name),
      );
      const sizes: Record<string, number> = {};
      for (const tool of reads) sizes[tool.name] = resultChars(await call(tool.name, inputs[tool.name]!));
      for (const [name, size] of Object.entries(sizes)) expect(size, name).to.be.at.most(100_000);
      expect(sizes.screen_companies).to.be.at.most(10_000);
    });
  });
}
