import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { listCompanies } from '../tools/companies/list-companies.ts';
import { Company } from '../tools/schemas/company.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

for (const dialect of dialects) {
  describe(`companies over REST and MCP (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      mcp = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('lists the firm companies by name in the pagination envelope', async () => {
      const res = await api(server.url, '/v1/companies/', { token: fx.admin.rest });
      expect(res.status).to.equal(200);
      expect(res.body.count).to.equal(3);
      expect(res.body.next).to.equal(null);
      expect(res.body.previous).to.equal(null);
      expect(res.body.results.map((c: { name: string }) => c.name)).to.deep.equal([
        'Acme Analytics',
        'Beta Bio',
        'Gamma Grid',
      ]);
      expect(res.body.results[0].invested_fund_ids).to.deep.equal([fx.fundA]);
    });

    it('never shows another firm companies', async () => {
      const res = await api(server.url, `/v1/companies/?ids[]=${fx.companies.zeta.id}`, {
        token: fx.admin.rest,
      });
      expect(res.body.count).to.equal(0);
      const other = await api(server.url, '/v1/companies/', { token: fx.other.rest });
      expect(other.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['Zeta Zero']);
    });

    it('filters by ids[] and by a case-insensitive name substring', async () => {
      const byIds = await api(
        server.url,
        `/v1/companies/?ids[]=${fx.companies.beta.id}&ids[]=${fx.companies.gamma.id}&ids[]=unknown`,
        { token: fx.admin.rest },
      );
      expect(byIds.body.results.map((c: { id: string }) => c.id)).to.have.members([
        fx.companies.beta.id,
        fx.companies.gamma.id,
      ]);
      const byName = await api(server.url, '/v1/companies/?name=GRID', { token: fx.admin.rest });
      expect(byName.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['Gamma Grid']);
      const wildcard = await api(server.url, '/v1/companies/?name=%25', { token: fx.admin.rest });
      expect(wildcard.body.count).to.equal(0);
    });

    it('pages with absolute next and previous links that keep the other parameters', async () => {
      const first = await api(server.url, '/v1/companies/?page_size=2&name=a', { token: fx.admin.rest });
      expect(first.body.count).to.equal(3);
      expect(first.body.results).to.have.length(2);
      expect(first.body.next).to.equal(`${server.url}/v1/companies/?page_size=2&name=a&page=2`);
      const second = await api(server.url, first.body.next.slice(server.url.length), {
        token: fx.admin.rest,
      });
      expect(second.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['Gamma Grid']);
      expect(second.body.next).to.equal(null);
      expect(second.body.previous).to.equal(`${server.url}/v1/companies/?page_size=2&name=a&page=1`);
    });

    it('clamps page_size above 100 and rejects junk and past-the-end pages', async () => {
      const clamped = await api(server.url, '/v1/companies/?page_size=500', { token: fx.admin.rest });
      expect(clamped.status).to.equal(200);
      const junk = await api(server.url, '/v1/companies/?page_size=abc', { token: fx.admin.rest });
      expect(junk.status).to.equal(400);
      expect(junk.headers.get('content-type')).to.match(/application\/problem\+json/);
      expect(junk.body.code).to.equal('invalid_parameter');
      expect(junk.body.errors[0].field).to.equal('page_size');
      const zero = await api(server.url, '/v1/companies/?page=0', { token: fx.admin.rest });
      expect(zero.status).to.equal(400);
      expect(zero.body.errors[0].field).to.equal('page');
      const past = await api(server.url, '/v1/companies/?page=2', { token: fx.admin.rest });
      expect(past.status).to.equal(404);
      expect(past.body.code).to.equal('not_found');
    });

    it('limits a restricted user to the companies they may access', async () => {
      const res = await api(server.url, '/v1/companies/', { token: fx.restricted.rest });
      expect(res.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['Acme Analytics']);
      const hidden = await api(server.url, `/v1/companies/${fx.companies.beta.id}/`, {
        token: fx.restricted.rest,
      });
      expect(hidden.status).to.equal(404);
    });

    it('answers the MCP list_companies and get_company tools from the same handlers', async () => {
      const listed = await mcp.callTool({
        name: 'list_companies',
        arguments: { per_page: 2, response_format: 'detailed' },
      });
      const page = listed.structuredContent as {
        count: number;
        has_more: boolean;
        results: { id: string }[];
      };
      expect(page.count).to.equal(3);
      expect(page.has_more).to.equal(true);
      const rest = await api(server.url, '/v1/companies/?page_size=2', { token: fx.admin.rest });
      expect(page.results).to.deep.equal(rest.body.results);
      expect(JSON.parse((listed.content as { text: string }[])[0]!.text)).to.deep.equal(page);

      const one = await mcp.callTool({
        name: 'get_company',
        arguments: { company_id: fx.companies.gamma.id },
      });
      expect((one.structuredContent as { name: string }).name).to.equal('Gamma Grid');
    });

    it('filters list_companies and search_companies by status, naming the valid statuses otherwise', async () => {
      await t.db('companies').where('id', fx.companies.beta.id).update({ status: 'exited' });
      try {
        const names = (r: Record<string, unknown>) =>
          (r.structuredContent as { results: { name: string }[] }).results.map((c) => c.name);
        const active = await mcp.callTool({ name: 'list_companies', arguments: { status: 'Active' } });
        expect(names(active)).to.deep.equal(['Acme Analytics', 'Gamma Grid']);
        const exited = await mcp.callTool({ name: 'search_companies', arguments: { status: 'exited' } });
        expect(names(exited)).to.deep.equal(['Beta Bio']);
        const both = await mcp.callTool({
          name: 'search_companies',
          arguments: { status: 'active', sector: 'climate' },
        });
        expect(names(both)).to.deep.equal(['Gamma Grid']);
        const rest = await api(server.url, '/v1/companies/?status=exited', { token: fx.admin.rest });
        expect(rest.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['Beta Bio']);
        const bad = await mcp.callTool({ name: 'list_companies', arguments: { status: 'zombie' } });
        expect(bad.isError).to.equal(true);
        expect((bad.content as { text: string }[])[0]!.text).to.match(
          /status must be one of: active, exited/,
        );
        const badRest = await api(server.url, '/v1/companies/?status=zombie', { token: fx.admin.rest });
        expect(badRest.status).to.equal(400);
      } finally {
        await t.db('companies').where('id', fx.companies.beta.id).update({ status: 'active' });
      }
    });

    it('gives a model an actionable error for an unknown company id', async () => {
      const res = await mcp.callTool({
        name: 'get_company',
        arguments: { company_id: fx.companies.zeta.id },
      });
      expect(res.isError).to.equal(true);
      expect((res.content as { text: string }[])[0]!.text).to.match(/list_companies/);
    });

    it('rejects Basic credentials and bad tokens on data endpoints with 401', async () => {
      const basic = await api(server.url, '/v1/companies/', {
        headers: { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      });
      expect(basic.status).to.equal(401);
      expect(basic.headers.get('www-authenticate')).to.match(/^Bearer /);
      const none = await api(server.url, '/v1/companies/');
      expect(none.status).to.equal(401);
      expect(none.body.code).to.equal('unauthenticated');
      const bad = await api(server.url, '/v1/companies/', { token: 'nope' });
      expect(bad.status).to.equal(401);
      expect(bad.headers.get('www-authenticate')).to.match(/error="invalid_token"/);
    });

    it('rejects a REST client-credentials token at /mcp', async () => {
      const res = await api(server.url, '/mcp', {
        token: fx.admin.rest,
        method: 'POST',
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { Accept: 'application/json, text/event-stream' },
      });
      expect(res.status).to.equal(401);
    });

    it('answers unknown paths with 404 and wrong methods with 405 and Allow, with a request id', async () => {
      const missing = await api(server.url, '/v1/nothing/', { token: fx.admin.rest });
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('x-request-id')).to.be.a('string');
      const wrong = await api(server.url, '/v1/companies/', { token: fx.admin.rest, method: 'DELETE' });
      expect(wrong.status).to.equal(405);
      expect(wrong.headers.get('allow')).to.equal('GET, POST');
      const echoed = await api(server.url, '/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
      expect(echoed.headers.get('x-request-id')).to.equal('abc-123');
    });
  });
}

describe('the list_companies description', () => {
  it('names the fields each company comes with, each one a field of the result', () => {
    const named: Record<string, keyof typeof Company.shape> = {
      id: 'id',
      slug: 'slug',
      sector: 'sector',
      city: 'city',
      status: 'status',
      website: 'website',
      currency: 'reporting_currency',
      'fiscal year end': 'fiscal_year_end',
      lead: 'investment_lead_id',
      funds: 'invested_fund_ids',
    };
    for (const [words, field] of Object.entries(named)) {
      expect(listCompanies.description, words).to.include(words);
      expect(Company.shape, field).to.have.property(field);
    }
    expect(listCompanies.description.length).to.be.at.most(200);
  });
});
