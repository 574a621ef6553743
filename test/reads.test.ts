import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { hashSecret } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import type { Repos } from '../db/repos/index.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const T0 = '2026-01-01T00:00:00.000Z';
/** The test clock's today is 2026-06-01. */
const NOW = new Date('2026-06-01T12:00:00.000Z');

type Json = Record<string, unknown>;
type Named = { id: string; name: string };

/** The rows each suite adds on top of buildFixture, with the ids the tests need. */
async function seed(fx: Fixture, repos: Repos) {
  const { acme, beta, gamma, zeta } = fx.companies;
  const A = fx.firmA.id;
  const B = fx.firmB.id;

  // Rows whose order is decided by the id alone get ids that sort the same under any collation.
  const budget = async (
    firmId: string,
    companyId: string,
    name: string,
    date: string,
    createdAt: string,
    id = newId(),
  ) => {
    await repos.budgets.create({
      id,
      firm_id: firmId,
      company_id: companyId,
      name,
      date,
      color: '#336699',
      description: `${name} scenario`,
      created_at: createdAt,
    });
    return id;
  };
  const budgets = {
    acme2025: await budget(A, acme.id, 'Plan 2025', '2025-01-01', '2025-01-02T00:00:00.000Z', 'budget-tie-2'),
    acme2026: await budget(A, acme.id, 'Plan 2026', '2026-01-01', '2024-06-01T00:00:00.000Z'),
    beta: await budget(A, beta.id, 'Beta plan', '2025-06-01', '2025-07-01T00:00:00.000Z'),
    gammaTie: await budget(
      A,
      gamma.id,
      'Gamma plan',
      '2025-01-01',
      '2025-03-01T00:00:00.000Z',
      'budget-tie-1',
    ),
    zeta: await budget(B, zeta.id, 'Zeta plan', '2025-01-01', '2025-01-01T00:00:00.000Z'),
  };

  const request = async (firmId: string, name: string, dueDate: string, items = false) => {
    const id = newId();
    await repos.information.createRequest(
      {
        id,
        firm_id: firmId,
        name,
        due_date: dueDate,
        period_start_date: '2025-10-01',
        period_end_date: '2025-12-31',
        period: 'quarter',
        status: 'active',
        created_at: T0,
      },
      items
        ? [
            { id: newId(), name: 'Balance sheet', optional: false, position: 0 },
            { id: newId(), name: 'P&L', optional: true, position: 1 },
          ]
        : [],
      items
        ? [
            { id: newId(), name: 'Revenue', optional: false, position: 0 },
            { id: newId(), name: 'Cash in bank', optional: false, position: 1 },
          ]
        : [],
    );
    return id;
  };
  const requests = {
    pastDue: await request(A, 'Q4 2025 financials', '2026-01-31', true),
    open: await request(A, 'Q1 2026 FINANCIALS', '2026-07-15'),
    budget: await request(A, 'Annual budget 2026', '2026-03-01'),
    zeta: await request(B, 'Zeta request', '2026-02-01'),
  };

  const report = async (
    companyId: string,
    requestId: string,
    status: string,
    submittedAt: string | null,
    firmId = A,
    items = false,
    id = newId(),
  ) => {
    await repos.information.createReport(
      {
        id,
        firm_id: firmId,
        company_id: companyId,
        information_request_id: requestId,
        submitted_at: submittedAt,
        status,
        created_at: T0,
      },
      items
        ? [
            { id: newId(), requested_document: 'Balance sheet', status: 'completed', position: 0 },
            { id: newId(), requested_document: 'P&L', status: 'missing', position: 1 },
          ]
        : [],
      items
        ? [
            {
              id: newId(),
              name: 'Revenue',
              date: '2025-12-31',
              status: 'completed',
              time_period: 'quarter',
              position: 0,
            },
            {
              id: newId(),
              name: 'Cash in bank',
              date: '2025-12-31',
              status: 'completed',
              time_period: 'point_in_time',
              position: 1,
            },
          ]
        : [],
    );
    return id;
  };
  const reports = {
    acmePastDue: await report(acme.id, requests.pastDue, 'completed', '2026-01-30T10:00:00.000Z', A, true),
    betaPastDue: await report(beta.id, requests.pastDue, 'in-progress', null, A, false, 'report-unsent-3'),
    gammaPastDue: await report(gamma.id, requests.pastDue, 'not-started', null, A, false, 'report-unsent-1'),
    acmeOpen: await report(acme.id, requests.open, 'in_progress', null, A, false, 'report-unsent-2'),
    betaOpen: await report(beta.id, requests.open, 'partially-complete', '2026-05-01T00:00:00.000Z'),
    gammaOpen: await report(gamma.id, requests.open, 'completed', '2026-05-20T00:00:00.000Z'),
    zeta: await report(zeta.id, requests.zeta, 'completed', '2026-01-01T00:00:00.000Z', B),
  };

  const document = async (
    firmId: string,
    companyId: string,
    name: string,
    parseState: string,
    uploadedAt: string,
    source: string,
    content: Buffer,
    informationRequestId: string | null = null,
  ) => {
    const id = newId();
    const fileId = newId();
    await repos.documents.create(
      {
        id,
        firm_id: firmId,
        company_id: companyId,
        information_request_id: informationRequestId,
        file_id: fileId,
        name,
        parse_state: parseState,
        parsed_at: parseState === 'completed' ? '2026-01-11T00:00:00.000Z' : null,
        uploaded_at: uploadedAt,
        submitted_date: uploadedAt.slice(0, 10),
        source,
      },
      {
        id: fileId,
        filename: name,
        content_type: name.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream',
        size: content.length,
        content,
      },
    );
    return id;
  };
  const deckBytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x10, 0x80, 0x0a]);
  const documents = {
    deck: await document(
      A,
      acme.id,
      'Board deck Q1.pdf',
      'completed',
      '2026-01-10T09:00:00.000Z',
      'upload',
      deckBytes,
    ),
    financials: await document(
      A,
      acme.id,
      'Financials "final".xlsx',
      'not-started',
      '2026-01-20T23:59:59.999Z',
      'email',
      Buffer.from('sheet'),
    ),
    beta: await document(
      A,
      beta.id,
      'Beta update.pdf',
      'in-progress',
      '2026-02-01T00:00:00.000Z',
      'information-request',
      Buffer.from('beta'),
      requests.pastDue,
    ),
    zeta: await document(
      B,
      zeta.id,
      'Zeta.pdf',
      'completed',
      '2026-01-15T00:00:00.000Z',
      'upload',
      Buffer.from('zeta'),
    ),
    deckBytes,
  };

  const note = async (
    firmId: string,
    companyId: string,
    authorId: string,
    text: string,
    createdAt: string,
  ) => {
    const id = newId();
    await repos.notes.create({
      id,
      firm_id: firmId,
      company_id: companyId,
      author_id: authorId,
      note: text,
      created_at: createdAt,
    });
    return id;
  };
  const notes = {
    acmeOld: await note(A, acme.id, fx.admin.user.id, 'Met the founders.', '2026-01-01T10:00:00.000Z'),
    acmeNew: await note(A, acme.id, fx.editor.user.id, '**Strong** quarter.', '2026-02-01T10:00:00.000Z'),
    beta: await note(A, beta.id, fx.admin.user.id, 'Hiring a CFO.', '2026-01-15T10:00:00.000Z'),
    zeta: await note(B, zeta.id, fx.other.user.id, 'Zeta note.', '2026-01-20T10:00:00.000Z'),
  };

  const option = (value: string, position: number) => ({ id: newId(), value, color: '#00ff00', position });
  const stageOptions = [option('Seed', 0), option('Series A', 1), option('Series B', 2)];
  const tagOptions = [option('AI', 0), option('B2B', 1), option('Climate', 2)];
  const columns = {
    owner: newId(),
    stage: newId(),
    tags: newId(),
    zeta: newId(),
    stageOptions,
    tagOptions,
  };
  await repos.customColumns.createColumn({
    id: columns.owner,
    firm_id: A,
    name: 'Owner',
    type: 'text',
    created_at: T0,
  });
  await repos.customColumns.createColumn(
    { id: columns.stage, firm_id: A, name: 'Stage', type: 'select', created_at: T0 },
    stageOptions,
  );
  await repos.customColumns.createColumn(
    { id: columns.tags, firm_id: A, name: 'Tags', type: 'multi_select', created_at: T0 },
    tagOptions,
  );
  await repos.customColumns.createColumn({
    id: columns.zeta,
    firm_id: B,
    name: 'Zeta column',
    type: 'text',
    created_at: T0,
  });
  const value = (column_id: string, company_id: string, v: { text?: string | null; options?: string[] }) =>
    repos.customColumns.setValue({
      id: newId(),
      column_id,
      company_id,
      value_text: v.text ?? null,
      option_ids: v.options ?? null,
    });
  await value(columns.owner, acme.id, { text: 'Dana' });
  await value(columns.stage, acme.id, { options: [stageOptions[1]!.id] });
  await value(columns.tags, acme.id, { options: [tagOptions[1]!.id, tagOptions[0]!.id] });
  await value(columns.owner, beta.id, { text: null });
  await value(columns.stage, beta.id, { options: [] });
  await value(columns.tags, gamma.id, { options: [tagOptions[2]!.id, 'removed-option'] });
  await value(columns.zeta, zeta.id, { text: 'Z' });

  const fund = async (firmId: string, name: string) => {
    const id = newId();
    await repos.funds.create({
      id,
      firm_id: firmId,
      name,
      size: '2500000.50',
      vintage: 2024,
      currency: 'EUR',
      created_at: T0,
    });
    return id;
  };
  const funds = { annex: await fund(A, 'Alpha Annex'), second: await fund(A, 'Alpha Fund II') };
  await fund(B, 'Bravo Fund');

  // A viewer limited to Beta who may see documents (the fixture's restricted user may not).
  const limitedUser = {
    id: newId(),
    firm_id: A,
    email: 'limited@alpha.test',
    first_name: 'Lim',
    last_name: 'Ited',
    password_hash: await hashSecret('limited-password'),
    role: 'viewer' as const,
    all_companies: false,
    can_view_documents: true,
    can_edit_cap_table: false,
    is_active: true,
    created_at: T0,
  };
  await repos.users.create(limitedUser, [beta.id]);
  const limited = await issueToken(repos, limitedUser);

  return { budgets, requests, reports, documents, notes, columns, funds, limited };
}

for (const dialect of dialects) {
  describe(`REST reads and their MCP tools (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let data: Awaited<ReturnType<typeof seed>>;
    let server: RunningServer;
    let mcp: Client;
    let mcpRestricted: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      data = await seed(fx, fx.repos);
      server = await startTestServer(t.db, { clock: new TestClock(NOW) });
      mcp = await mcpClient(server.url, fx.admin.pat);
      mcpRestricted = await mcpClient(server.url, fx.restricted.pat);
    });
    after(async () => {
      await mcp?.close();
      await mcpRestricted?.close();
      await server?.close();
      await t?.drop();
    });

    const get = (path: string, token = fx.admin.rest) => api(server.url, path, { token });
    const ids = (body: { results: { id: string }[] }) => body.results.map((r) => r.id);

    /** Expects a 400 naming exactly this field with this code. */
    async function expectBad(path: string, field: string, code = 'invalid_parameter', token = fx.admin.rest) {
      const res = await get(path, token);
      expect(res.status, path).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/application\/problem\+json/);
      expect(res.body.code, path).to.equal(code);
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        path,
      ).to.deep.equal([field]);
    }

    async function expectNotFound(path: string, token = fx.admin.rest) {
      const res = await get(path, token);
      expect(res.status, path).to.equal(404);
      expect(res.body.code, path).to.equal('not_found');
    }

    /** Follows next from page 1 and returns every item seen, after checking the links are absolute. */
    async function walk(path: string, pageSize: number, token = fx.admin.rest): Promise<Json[]> {
      const sep = path.includes('?') ? '&' : '?';
      let next: string | null = `${server.url}${path}${sep}page_size=${pageSize}`;
      const seen: Json[] = [];
      let count = -1;
      while (next) {
        expect(next.startsWith(server.url)).to.equal(true);
        const res = await get(next.slice(server.url.length), token);
        expect(res.status, next).to.equal(200);
        if (count >= 0) expect(res.body.count).to.equal(count);
        count = res.body.count;
        expect(res.body.results.length).to.be.at.most(pageSize);
        seen.push(...res.body.results);
        next = res.body.next;
      }
      expect(seen.length).to.equal(count);
      return seen;
    }

    async function callTool(client: Client, name: string, args: Json = {}) {
      const res = await client.callTool({ name, arguments: args });
      return {
        isError: res.isError === true,
        text: (res.content as { text: string }[])[0]?.text ?? '',
        // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
        data: res.structuredContent as any,
      };
    }

    describe('GET /v1/budgets/ and list_budgets', () => {
      it('lists every budget of the firm by date, newest first, ties by id, in the reference shape', async () => {
        const res = await get('/v1/budgets/');
        expect(res.status).to.equal(200);
        expect(res.body.count).to.equal(4);
        expect(ids(res.body)).to.deep.equal([
          data.budgets.acme2026,
          data.budgets.beta,
          data.budgets.gammaTie,
          data.budgets.acme2025,
        ]);
        const first = res.body.results[0];
        expect(first).to.deep.equal({
          id: data.budgets.acme2026,
          date: '2026-01-01',
          company: 'Acme Analytics',
          company_id: fx.companies.acme.id,
          company_slug: 'acme-analytics',
          name: 'Plan 2026',
          color: '#336699',
          description: 'Plan 2026 scenario',
        });
        assertReference('main', 'Scenario', ...res.body.results);
      });

      it('filters by company_id or company_slug', async () => {
        const byId = await get(`/v1/budgets/?company_id=${fx.companies.acme.id}`);
        expect(ids(byId.body)).to.deep.equal([data.budgets.acme2026, data.budgets.acme2025]);
        const bySlug = await get('/v1/budgets/?company_slug=beta-bio');
        expect(ids(bySlug.body)).to.deep.equal([data.budgets.beta]);
        const both = await get(`/v1/budgets/?company_slug=beta-bio&company_id=${fx.companies.beta.id}`);
        expect(ids(both.body)).to.deep.equal([data.budgets.beta]);
      });

      it('rejects a company_id and company_slug that name different companies', async () => {
        await expectBad(
          `/v1/budgets/?company_slug=beta-bio&company_id=${fx.companies.acme.id}`,
          'company_slug',
        );
      });

      it('answers 404 for a company of another firm, an unknown slug, or one outside the caller access', async () => {
        await expectNotFound(`/v1/budgets/?company_id=${fx.companies.zeta.id}`);
        await expectNotFound('/v1/budgets/?company_slug=zeta-zero');
        await expectNotFound('/v1/budgets/?company_id=nope');
        await expectNotFound(`/v1/budgets/?company_id=${fx.companies.beta.id}`, fx.restricted.rest);
      });

      it('sorts by -created_at newest first and by created_at, +created_at or a decoded + oldest first', async () => {
        const newest = [
          data.budgets.beta,
          data.budgets.gammaTie,
          data.budgets.acme2025,
          data.budgets.acme2026,
        ];
        const desc = await get('/v1/budgets/?sort_by=-created_at');
        expect(ids(desc.body)).to.deep.equal(newest);
        const oldest = [...newest].reverse();
        for (const q of ['created_at', '%2Bcreated_at', '+created_at', '%20created_at']) {
          const asc = await get(`/v1/budgets/?sort_by=${q}`);
          expect(asc.status, q).to.equal(200);
          expect(ids(asc.body), q).to.deep.equal(oldest);
        }
      });

      it('rejects any other sort_by', async () => {
        await expectBad('/v1/budgets/?sort_by=date', 'sort_by');
        await expectBad('/v1/budgets/?sort_by=--created_at', 'sort_by');
        await expectBad('/v1/budgets/?sort_by=created_at%20', 'sort_by');
      });

      it('rejects page_size 0 and pages past the end', async () => {
        await expectBad('/v1/budgets/?page_size=0', 'page_size');
        await expectNotFound('/v1/budgets/?page=3&page_size=2');
      });

      it('visits each budget once when following next', async () => {
        const all = await walk('/v1/budgets/?sort_by=-created_at', 1);
        expect(all.map((b) => b.id)).to.deep.equal([
          data.budgets.beta,
          data.budgets.gammaTie,
          data.budgets.acme2025,
          data.budgets.acme2026,
        ]);
      });

      it('shows another firm and a restricted user only their own budgets', async () => {
        const other = await get('/v1/budgets/', fx.other.rest);
        expect(ids(other.body)).to.deep.equal([data.budgets.zeta]);
        const restricted = await get('/v1/budgets/', fx.restricted.rest);
        expect(ids(restricted.body)).to.deep.equal([data.budgets.acme2026, data.budgets.acme2025]);
      });

      it('answers list_budgets over MCP with the same items', async () => {
        const res = await callTool(mcp, 'list_budgets', { company_id: fx.companies.acme.id, per_page: 1 });
        expect(res.data.count).to.equal(2);
        expect(res.data.has_more).to.equal(true);
        // Concisely the budgets are one table.
        const { columns, rows } = res.data.budgets as { columns: string[]; rows: unknown[][] };
        expect(rows.map((r) => r[columns.indexOf('name')])).to.deep.equal(['Plan 2026']);
        const bad = await callTool(mcp, 'list_budgets', { company_id: fx.companies.zeta.id });
        expect(bad.isError).to.equal(true);
        expect(bad.text).to.match(/list_companies/);
      });
    });

    describe('GET /v1/documents/ and list_documents', () => {
      it('lists documents newest upload first with an authenticated download link', async () => {
        const res = await get('/v1/documents/');
        expect(res.status).to.equal(200);
        expect(ids(res.body)).to.deep.equal([
          data.documents.beta,
          data.documents.financials,
          data.documents.deck,
        ]);
        expect(res.body.results[0]).to.deep.equal({
          id: data.documents.beta,
          name: 'Beta update.pdf',
          link: `${server.url}/v1/documents/${data.documents.beta}/download/`,
          company_id: fx.companies.beta.id,
          company_name: fx.companies.beta.name,
          information_request_id: data.requests.pastDue,
          parse_state: 'in-progress',
          parsed_at: null,
          uploaded_at: '2026-02-01T00:00:00.000Z',
          submitted_date: '2026-02-01',
          source: 'information-request',
        });
        expect(res.body.results[2].information_request_id).to.equal('');
        assertReference('main', 'LibraryDocument', ...res.body.results);
      });

      it("names each document's company", async () => {
        const res = await get('/v1/documents/');
        const names = new Map(Object.values(fx.companies).map((c) => [c.id, c.name]));
        expect(res.body.results.length).to.be.greaterThan(0);
        for (const d of res.body.results) expect(d.company_name, d.id).to.equal(names.get(d.company_id));
        const acme = { company_id: fx.companies.acme.id };
        const detailed = await callTool(mcp, 'list_documents', { ...acme, response_format: 'detailed' });
        expect(detailed.data.results.map((d: Json) => d.company_name)).to.deep.equal([
          fx.companies.acme.name,
          fx.companies.acme.name,
        ]);
        // The concise form states a name every result shares once.
        const concise = await callTool(mcp, 'list_documents', acme);
        expect(concise.data.same_in_every_result.company_name).to.equal(fx.companies.acme.name);
      });

      it('filters by company_id, parse_state and source', async () => {
        const company = await get(`/v1/documents/?company_id=${fx.companies.acme.id}`);
        expect(ids(company.body)).to.deep.equal([data.documents.financials, data.documents.deck]);
        const parsed = await get('/v1/documents/?parse_state=completed');
        expect(ids(parsed.body)).to.deep.equal([data.documents.deck]);
        const email = await get('/v1/documents/?source=email');
        expect(ids(email.body)).to.deep.equal([data.documents.financials]);
        const none = await get('/v1/documents/?source=stakeholder-update');
        expect(none.status).to.equal(200);
        expect(none.body.count).to.equal(0);
      });

      it('filters by upload date with from and to, both inclusive whole days', async () => {
        const day = await get('/v1/documents/?from=2026-01-20&to=2026-01-20');
        expect(ids(day.body)).to.deep.equal([data.documents.financials]);
        const from = await get('/v1/documents/?from=2026-01-21');
        expect(ids(from.body)).to.deep.equal([data.documents.beta]);
        const to = await get('/v1/documents/?to=2026-01-10');
        expect(ids(to.body)).to.deep.equal([data.documents.deck]);
      });

      it('rejects unknown enum values, bad dates and from after to, naming the REST field', async () => {
        await expectBad('/v1/documents/?parse_state=done', 'parse_state');
        await expectBad('/v1/documents/?source=fax', 'source');
        await expectBad('/v1/documents/?from=2026-13-01', 'from');
        await expectBad('/v1/documents/?to=yesterday', 'to');
        await expectBad('/v1/documents/?from=2026-02-01&to=2026-01-01', 'from');
        await expectBad('/v1/documents/?page_size=x', 'page_size');
      });

      it('answers 404 for a company the caller cannot see', async () => {
        await expectNotFound(`/v1/documents/?company_id=${fx.companies.zeta.id}`);
        await expectNotFound(`/v1/documents/?company_id=${fx.companies.acme.id}`, data.limited);
      });

      it('refuses a user without access to documents with 403', async () => {
        const res = await get('/v1/documents/', fx.restricted.rest);
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('permission_denied');
        const tool = await callTool(mcpRestricted, 'list_documents');
        expect(tool.isError).to.equal(true);
        expect(tool.text).to.match(/documents/);
      });

      it('shows another firm and a company-limited user only their documents', async () => {
        const other = await get('/v1/documents/', fx.other.rest);
        expect(ids(other.body)).to.deep.equal([data.documents.zeta]);
        const limited = await get('/v1/documents/', data.limited);
        expect(ids(limited.body)).to.deep.equal([data.documents.beta]);
      });

      it('visits each document once when following next', async () => {
        const all = await walk('/v1/documents/?to=2026-12-31', 2);
        expect(all.map((d) => d.id)).to.deep.equal([
          data.documents.beta,
          data.documents.financials,
          data.documents.deck,
        ]);
      });

      it('answers list_documents over MCP with from_date and to_date', async () => {
        const res = await callTool(mcp, 'list_documents', { from_date: '2026-01-20', to_date: '2026-01-31' });
        expect(res.data.results.map((d: Named) => d.id)).to.deep.equal([data.documents.financials]);
        const bad = await callTool(mcp, 'list_documents', { from_date: '2026-02-01', to_date: '2026-01-01' });
        expect(bad.isError).to.equal(true);
        expect(bad.text).to.match(/from_date/);
      });
    });

    describe('GET /v1/documents/{id}/download/', () => {
      const path = (id: string) => `/v1/documents/${id}/download/`;

      it('returns the stored bytes with their content type as an attachment', async () => {
        const listed = await get(`/v1/documents/?company_id=${fx.companies.acme.id}&parse_state=completed`);
        const link: string = listed.body.results[0].link;
        const res = await fetch(link, { headers: { Authorization: `Bearer ${fx.admin.rest}` } });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('application/pdf');
        expect(res.headers.get('content-disposition')).to.equal(
          `attachment; filename="Board deck Q1.pdf"; filename*=UTF-8''Board%20deck%20Q1.pdf`,
        );
        expect(Buffer.from(await res.arrayBuffer()).equals(data.documents.deckBytes)).to.equal(true);
        // Counted against the caller's rate limit like every other REST request.
        expect(res.headers.get('ratelimit-remaining')).to.match(/^\d+$/);
      });

      it('keeps quotes out of the plain filename', async () => {
        const res = await fetch(server.url + path(data.documents.financials), {
          headers: { Authorization: `Bearer ${fx.admin.pat}` },
        });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-disposition')).to.match(
          /^attachment; filename="Financials _final_.xlsx";/,
        );
        expect(await res.text()).to.equal('sheet');
      });

      it('answers 404 for another firm, a company outside access, and unknown ids', async () => {
        await expectNotFound(path(data.documents.zeta));
        await expectNotFound(path(data.documents.deck), fx.other.rest);
        await expectNotFound(path(data.documents.deck), data.limited);
        await expectNotFound(path('nope'));
      });

      it('answers 403 without the documents permission, 401 without a token, 405 for other methods', async () => {
        const denied = await get(path(data.documents.deck), fx.restricted.rest);
        expect(denied.status).to.equal(403);
        expect(denied.body.code).to.equal('permission_denied');
        const anonymous = await api(server.url, path(data.documents.deck));
        expect(anonymous.status).to.equal(401);
        expect(anonymous.body.code).to.equal('unauthenticated');
        const post = await api(server.url, path(data.documents.deck), {
          token: fx.admin.rest,
          method: 'POST',
        });
        expect(post.status).to.equal(405);
        expect(post.headers.get('allow')).to.equal('GET');
      });
    });

    describe('GET /v1/notes/ and list_notes', () => {
      it('requires company_id or company_slug on REST', async () => {
        await expectBad('/v1/notes/', 'company_id', 'missing_parameter');
      });

      it('lists a company notes newest first with the author name and e-mail', async () => {
        const res = await get('/v1/notes/?company_slug=acme-analytics');
        expect(res.status).to.equal(200);
        expect(ids(res.body)).to.deep.equal([data.notes.acmeNew, data.notes.acmeOld]);
        expect(res.body.results[1]).to.deep.equal({
          id: data.notes.acmeOld,
          company_id: fx.companies.acme.id,
          note: 'Met the founders.',
          author_id: fx.admin.user.id,
          author: 'admin Tester',
          email: 'admin@alpha.test',
          created_at: '2026-01-01T10:00:00.000Z',
        });
        assertReference('main', 'PortfolioCompanyNoteAPI', ...res.body.results);
      });

      it('sorts by created_at oldest first and rejects other sort_by values', async () => {
        const asc = await get(`/v1/notes/?company_id=${fx.companies.acme.id}&sort_by=created_at`);
        expect(ids(asc.body)).to.deep.equal([data.notes.acmeOld, data.notes.acmeNew]);
        const desc = await get(`/v1/notes/?company_id=${fx.companies.acme.id}&sort_by=-created_at`);
        expect(ids(desc.body)).to.deep.equal([data.notes.acmeNew, data.notes.acmeOld]);
        await expectBad(`/v1/notes/?company_id=${fx.companies.acme.id}&sort_by=author`, 'sort_by');
      });

      it('answers 404 for companies of another firm or outside access', async () => {
        await expectNotFound(`/v1/notes/?company_id=${fx.companies.zeta.id}`);
        await expectNotFound('/v1/notes/?company_slug=beta-bio', fx.restricted.rest);
        const other = await get(`/v1/notes/?company_id=${fx.companies.zeta.id}`, fx.other.rest);
        expect(ids(other.body)).to.deep.equal([data.notes.zeta]);
      });

      it('filters by creation date with from and to, both inclusive whole days', async () => {
        const acme = `/v1/notes/?company_id=${fx.companies.acme.id}`;
        const day = await get(`${acme}&from=2026-02-01&to=2026-02-01`);
        expect(ids(day.body)).to.deep.equal([data.notes.acmeNew]);
        const from = await get(`${acme}&from=2026-01-02`);
        expect(ids(from.body)).to.deep.equal([data.notes.acmeNew]);
        const to = await get(`${acme}&to=2026-01-01`);
        expect(ids(to.body)).to.deep.equal([data.notes.acmeOld]);
        const none = await get(`${acme}&from=2026-03-01`);
        expect(none.status).to.equal(200);
        expect(none.body.count).to.equal(0);
      });

      it('rejects bad dates and from after to, naming the REST field', async () => {
        const acme = `/v1/notes/?company_id=${fx.companies.acme.id}`;
        await expectBad(`${acme}&from=2026-02-30`, 'from');
        await expectBad(`${acme}&to=soon`, 'to');
        await expectBad(`${acme}&from=2026-02-02&to=2026-02-01`, 'from');
      });

      it('filters notes of every company by from_date and to_date over MCP', async () => {
        const jan = await callTool(mcp, 'list_notes', { from_date: '2026-01-01', to_date: '2026-01-31' });
        expect(jan.data.results.map((n: Named) => n.id)).to.deep.equal([data.notes.beta, data.notes.acmeOld]);
        const bad = await callTool(mcp, 'list_notes', { from_date: '2026-02-01', to_date: '2026-01-01' });
        expect(bad.isError).to.equal(true);
        expect(bad.text).to.match(/from_date/);
      });

      it('visits each note once when following next', async () => {
        const all = await walk(`/v1/notes/?company_id=${fx.companies.acme.id}`, 1);
        expect(all.map((n) => n.id)).to.deep.equal([data.notes.acmeNew, data.notes.acmeOld]);
      });

      it('lists notes of every visible company over MCP when no company is given', async () => {
        const all = await callTool(mcp, 'list_notes');
        expect(all.data.results.map((n: Named) => n.id)).to.deep.equal([
          data.notes.acmeNew,
          data.notes.beta,
          data.notes.acmeOld,
        ]);
        const restricted = await callTool(mcpRestricted, 'list_notes', { sort_by: '+created_at' });
        expect(restricted.data.results.map((n: Named) => n.id)).to.deep.equal([
          data.notes.acmeOld,
          data.notes.acmeNew,
        ]);
      });
    });

    describe('GET /v1/custom-columns/ and get_custom_columns', () => {
      it('requires company_id or company_slug on REST', async () => {
        await expectBad('/v1/custom-columns/', 'company_id', 'missing_parameter');
      });

      it('returns text, select and multi_select values in the reference shapes, by column name', async () => {
        const { stageOptions, tagOptions } = data.columns;
        const res = await get(`/v1/custom-columns/?company_id=${fx.companies.acme.id}`);
        expect(res.status).to.equal(200);
        const company = { id: fx.companies.acme.id, name: 'Acme Analytics', slug: 'acme-analytics' };
        const option = (o: { id: string; value: string; color: string }) => ({
          id: o.id,
          value: o.value,
          color: o.color,
        });
        expect(res.body.results).to.deep.equal([
          { id: data.columns.owner, name: 'Owner', company, type: 'text', value: 'Dana' },
          { id: data.columns.stage, name: 'Stage', company, type: 'select', value: option(stageOptions[1]!) },
          {
            id: data.columns.tags,
            name: 'Tags',
            company,
            type: 'multi_select',
            value: [option(tagOptions[0]!), option(tagOptions[1]!)],
          },
        ]);
        assertReference('main', 'EntityProperty', ...res.body.results);
      });

      it('gives null for an empty text or select value and drops removed options', async () => {
        const beta = await get('/v1/custom-columns/?company_slug=beta-bio');
        expect(beta.body.results.map((v: Json) => [v.name, v.value])).to.deep.equal([
          ['Owner', null],
          ['Stage', null],
        ]);
        const gamma = await get(`/v1/custom-columns/?company_id=${fx.companies.gamma.id}`);
        expect(gamma.body.results[0].value.map((o: { value: string }) => o.value)).to.deep.equal(['Climate']);
        assertReference('main', 'EntityProperty', ...beta.body.results, ...gamma.body.results);
      });

      it('answers 404 for companies of another firm or outside access', async () => {
        await expectNotFound(`/v1/custom-columns/?company_id=${fx.companies.zeta.id}`);
        await expectNotFound(`/v1/custom-columns/?company_id=${fx.companies.beta.id}`, fx.restricted.rest);
        await expectBad(
          `/v1/custom-columns/?company_id=${fx.companies.acme.id}&company_slug=beta-bio`,
          'company_slug',
        );
      });

      it('lists every visible company values over MCP by company name, then column name', async () => {
        const all = await callTool(mcp, 'get_custom_columns');
        expect(
          all.data.results.map((v: { company: { slug: string }; name: string }) => [v.company.slug, v.name]),
        ).to.deep.equal([
          ['acme-analytics', 'Owner'],
          ['acme-analytics', 'Stage'],
          ['acme-analytics', 'Tags'],
          ['beta-bio', 'Owner'],
          ['beta-bio', 'Stage'],
          ['gamma-grid', 'Tags'],
        ]);
        const restricted = await callTool(mcpRestricted, 'get_custom_columns');
        expect(restricted.data.count).to.equal(3);
      });

      it('visits each value once when following next', async () => {
        const all = await walk(`/v1/custom-columns/?company_id=${fx.companies.acme.id}`, 2);
        expect(all.map((v) => v.name)).to.deep.equal(['Owner', 'Stage', 'Tags']);
      });
    });

    describe('GET /v1/custom-columns/options/ and get_custom_column_options', () => {
      it('lists the firm columns by name with their options in the reference shape', async () => {
        const res = await get('/v1/custom-columns/options/');
        expect(res.status).to.equal(200);
        expect(
          res.body.results.map((c: Json) => [c.name, c.type, (c.options as Named[]).length]),
        ).to.deep.equal([
          ['Owner', 'text', 0],
          ['Stage', 'select', 3],
          ['Tags', 'multi_select', 3],
        ]);
        expect(res.body.results[1].options.map((o: { value: string }) => o.value)).to.deep.equal([
          'Seed',
          'Series A',
          'Series B',
        ]);
        assertReference('main', 'Property', ...res.body.results);
        const walked = await walk('/v1/custom-columns/options/', 2);
        expect(walked.map((c) => c.id)).to.deep.equal(ids(res.body));
      });

      it('shows another firm only its own columns', async () => {
        const other = await get('/v1/custom-columns/options/', fx.other.rest);
        expect(ids(other.body)).to.deep.equal([data.columns.zeta]);
        const tool = await callTool(mcp, 'get_custom_column_options', { per_page: 1, page: 2 });
        expect(tool.data.results.map((c: Named) => c.name)).to.deep.equal(['Stage']);
      });
    });

    describe('GET /v1/information-requests/ and list_information_requests', () => {
      it('lists requests by due date, newest first, with report counts and requested items', async () => {
        const res = await get('/v1/information-requests/');
        expect(res.status).to.equal(200);
        expect(ids(res.body)).to.deep.equal([
          data.requests.open,
          data.requests.budget,
          data.requests.pastDue,
        ]);
        assertReference('main', 'InformationRequest', ...res.body.results);
        const [open, budget, pastDue] = res.body.results;
        const counts = (r: Json) => [
          r.completed_count,
          r.in_progress_count,
          r.not_started_count,
          r.partially_complete_count,
          r.past_due_count,
          r.unanswered_count,
        ];
        // unanswered_count: reports not submitted (acme's in_progress one of the open request).
        expect(counts(open)).to.deep.equal([1, 1, 0, 1, 0, 1]);
        expect(counts(budget)).to.deep.equal([0, 0, 0, 0, 0, 0]);
        // Due 2026-01-31, before the clock's 2026-06-01: whatever is not completed is past due.
        // Counters tally the reports' own statuses; past_due_count overlaps them.
        expect(counts(pastDue)).to.deep.equal([1, 1, 1, 0, 2, 2]);
        expect(pastDue.requested_documents.map((d: Json) => [d.name, d.optional])).to.deep.equal([
          ['Balance sheet', false],
          ['P&L', true],
        ]);
        expect(pastDue.requested_metrics.map((d: Json) => d.name)).to.deep.equal(['Revenue', 'Cash in bank']);
        expect(pastDue).to.include({
          name: 'Q4 2025 financials',
          due_date: '2026-01-31',
          period_start_date: '2025-10-01',
          period_end_date: '2025-12-31',
          period: 'quarter',
          status: 'active',
        });
      });

      it('filters by a case-insensitive name substring', async () => {
        const res = await get('/v1/information-requests/?name=financials');
        expect(ids(res.body)).to.deep.equal([data.requests.open, data.requests.pastDue]);
        const wildcard = await get('/v1/information-requests/?name=%25');
        expect(wildcard.body.count).to.equal(0);
      });

      it('counts only the reports of companies the caller may see, and never another firm', async () => {
        const res = await get('/v1/information-requests/?name=financials', fx.restricted.rest);
        const [open, pastDue] = res.body.results;
        expect([open.completed_count, open.in_progress_count, open.partially_complete_count]).to.deep.equal([
          0, 1, 0,
        ]);
        expect([pastDue.completed_count, pastDue.past_due_count]).to.deep.equal([1, 0]);
        const other = await get('/v1/information-requests/', fx.other.rest);
        expect(ids(other.body)).to.deep.equal([data.requests.zeta]);
      });

      it('visits each request once when following next, and answers over MCP', async () => {
        const all = await walk('/v1/information-requests/', 2);
        expect(all.map((r) => r.id)).to.deep.equal([
          data.requests.open,
          data.requests.budget,
          data.requests.pastDue,
        ]);
        const tool = await callTool(mcp, 'list_information_requests', { name: 'annual' });
        expect(tool.data.results.map((r: Named) => r.id)).to.deep.equal([data.requests.budget]);
      });
    });

    describe('GET /v1/information-reports/ and list_information_reports', () => {
      it("lists reports by their request's due date, latest first, then by company name, with item counts", async () => {
        const res = await get('/v1/information-reports/');
        expect(res.status).to.equal(200);
        expect(ids(res.body)).to.deep.equal([
          data.reports.acmeOpen,
          data.reports.betaOpen,
          data.reports.gammaOpen,
          data.reports.acmePastDue,
          data.reports.betaPastDue,
          data.reports.gammaPastDue,
        ]);
        assertReference('main', 'InformationReport', ...res.body.results);
        const acme = res.body.results[3];
        expect(acme).to.include({
          company_id: fx.companies.acme.id,
          information_request_id: data.requests.pastDue,
          submitted_at: '2026-01-30T10:00:00.000Z',
          status: 'completed',
          documents_completed: 1,
          documents_missing: 1,
          metrics_completed: 2,
          metrics_missing: 0,
        });
        expect(acme.documents.map((d: Json) => [d.requested_document, d.status])).to.deep.equal([
          ['Balance sheet', 'completed'],
          ['P&L', 'missing'],
        ]);
        expect(acme.metrics[0]).to.deep.include({
          name: 'Revenue',
          date: '2025-12-31',
          time_period: 'quarter',
        });
        expect(res.body.results[5]).to.include({ submitted_at: null, documents_missing: 0 });
      });

      it('filters by company_id and information_request_id', async () => {
        const company = await get(`/v1/information-reports/?company_id=${fx.companies.acme.id}`);
        expect(ids(company.body)).to.deep.equal([data.reports.acmeOpen, data.reports.acmePastDue]);
        const request = await get(`/v1/information-reports/?information_request_id=${data.requests.open}`);
        expect(ids(request.body)).to.deep.equal([
          data.reports.acmeOpen,
          data.reports.betaOpen,
          data.reports.gammaOpen,
        ]);
        const both = await get(
          `/v1/information-reports/?information_request_id=${data.requests.open}&company_id=${fx.companies.beta.id}`,
        );
        expect(ids(both.body)).to.deep.equal([data.reports.betaOpen]);
      });

      it('filters by status, an in_progress spelling counting as in-progress', async () => {
        const byStatus = async (status: string) =>
          ids((await get(`/v1/information-reports/?status=${status}`)).body);
        expect(await byStatus('in-progress')).to.deep.equal([
          data.reports.acmeOpen,
          data.reports.betaPastDue,
        ]);
        expect(await byStatus('not-started')).to.deep.equal([data.reports.gammaPastDue]);
        expect(await byStatus('partially-complete')).to.deep.equal([data.reports.betaOpen]);
        expect(await byStatus('completed')).to.deep.equal([data.reports.gammaOpen, data.reports.acmePastDue]);
        const tool = await callTool(mcp, 'list_information_reports', {
          response_format: 'detailed',
          status: 'in-progress',
          information_request_id: data.requests.open,
        });
        expect(tool.data.results.map((r: Named) => r.id)).to.deep.equal([data.reports.acmeOpen]);
      });

      it('filters by lateness: unsubmitted past the due date is late, submitted on time or not yet due is not', async () => {
        const late = await get('/v1/information-reports/?late=true');
        expect(ids(late.body)).to.deep.equal([data.reports.betaPastDue, data.reports.gammaPastDue]);
        expect(late.body.results.every((r: Json) => r.is_late === true)).to.equal(true);
        const onTime = await get('/v1/information-reports/?late=false');
        expect(ids(onTime.body)).to.deep.equal([
          data.reports.acmeOpen,
          data.reports.betaOpen,
          data.reports.gammaOpen,
          data.reports.acmePastDue,
        ]);
        const lateInProgress = await get('/v1/information-reports/?late=1&status=in-progress');
        expect(ids(lateInProgress.body)).to.deep.equal([data.reports.betaPastDue]);
        const tool = await callTool(mcp, 'list_information_reports', {
          response_format: 'detailed',
          late: false,
          company_id: fx.companies.gamma.id,
        });
        expect(tool.data.results.map((r: Named) => r.id)).to.deep.equal([data.reports.gammaOpen]);
      });

      it('rejects an unknown status and a late that is not a boolean, naming each', async () => {
        // A repeatable parameter names the value it refuses, as columns[1] of the screen does.
        await expectBad('/v1/information-reports/?status=done', 'status[0]');
        await expectBad('/v1/information-reports/?late=maybe', 'late');
      });

      it('answers 404 for ids of another firm, outside access, or unknown', async () => {
        await expectNotFound(`/v1/information-reports/?company_id=${fx.companies.zeta.id}`);
        await expectNotFound(`/v1/information-reports/?information_request_id=${data.requests.zeta}`);
        await expectNotFound('/v1/information-reports/?information_request_id=nope');
        await expectNotFound(
          `/v1/information-reports/?company_id=${fx.companies.beta.id}`,
          fx.restricted.rest,
        );
      });

      it('shows a restricted user and another firm only their reports', async () => {
        const restricted = await get('/v1/information-reports/', fx.restricted.rest);
        expect(ids(restricted.body)).to.deep.equal([data.reports.acmeOpen, data.reports.acmePastDue]);
        const other = await get('/v1/information-reports/', fx.other.rest);
        expect(ids(other.body)).to.deep.equal([data.reports.zeta]);
      });

      it('visits each report once when following next, and answers over MCP', async () => {
        const all = await walk('/v1/information-reports/', 4);
        const single = await get('/v1/information-reports/');
        expect(all.map((r) => r.id)).to.deep.equal(ids(single.body));
        const tool = await callTool(mcp, 'list_information_reports', { information_request_id: 'nope' });
        expect(tool.isError).to.equal(true);
        expect(tool.text).to.match(/list_information_requests/);
      });
    });

    describe('funds, users, whoami and firm details', () => {
      it('lists the firm funds by name in the reference shape', async () => {
        const res = await get('/v1/funds/');
        expect(res.body.results.map((f: Named) => f.name)).to.deep.equal([
          'Alpha Annex',
          'Alpha Fund I',
          'Alpha Fund II',
        ]);
        expect(res.body.results[0]).to.deep.equal({
          id: data.funds.annex,
          name: 'Alpha Annex',
          size: '2500000.50',
          vintage: 2024,
          currency: 'EUR',
        });
        assertReference('main', 'Fund', ...res.body.results);
        const walked = await walk('/v1/funds/', 2);
        expect(walked.map((f) => f.id)).to.deep.equal(ids(res.body));
        const other = await get('/v1/funds/', fx.other.rest);
        expect(other.body.results.map((f: Named) => f.name)).to.deep.equal(['Bravo Fund']);
        const tool = await callTool(mcp, 'list_funds', { per_page: 2 });
        expect(tool.data).to.include({ count: 3, has_more: true });
      });

      it('lists the firm users by e-mail and filters by exact e-mail in any case', async () => {
        const res = await get('/v1/users/');
        expect(res.body.results.map((u: { email: string }) => u.email)).to.deep.equal([
          'admin@alpha.test',
          'editor@alpha.test',
          'limited@alpha.test',
          'restricted@alpha.test',
          'viewer@alpha.test',
        ]);
        assertReference('main', 'APIUser', ...res.body.results);
        const one = await get('/v1/users/?email=EDITOR@alpha.test');
        expect(one.body.results).to.deep.equal([
          {
            id: fx.editor.user.id,
            first_name: 'editor',
            last_name: 'Tester',
            email: 'editor@alpha.test',
            role: 'editor',
          },
        ]);
        const partial = await get('/v1/users/?email=editor');
        expect(partial.body.count).to.equal(0);
        const foreign = await get('/v1/users/?email=admin@bravo.test');
        expect(foreign.body.count).to.equal(0);
        const walked = await walk('/v1/users/', 2);
        expect(walked.map((u) => u.id)).to.deep.equal(ids(res.body));
        const tool = await callTool(mcp, 'list_users', { email: 'viewer@alpha.test' });
        expect(tool.data.results.map((u: { role: string }) => u.role)).to.deep.equal(['viewer']);
      });

      it('tells the caller who they are over REST and MCP', async () => {
        const res = await get('/v1/whoami/', fx.editor.rest);
        expect(res.body).to.deep.equal({
          id: fx.editor.user.id,
          first_name: 'editor',
          last_name: 'Tester',
          email: 'editor@alpha.test',
          role: 'editor',
          firm: { id: fx.firmA.id, name: 'Alpha Partners', slug: 'alpha' },
        });
        assertReference('main', 'WhoamiUser', res.body);
        const tool = await callTool(mcpRestricted, 'whoami');
        expect(tool.data).to.include({ email: 'restricted@alpha.test', role: 'viewer' });
      });

      it('returns the firm details on REST only', async () => {
        const res = await get('/v1/firm-details/', fx.other.rest);
        expect(res.body).to.deep.equal({
          id: fx.firmB.id,
          name: 'Bravo Capital',
          slug: 'bravo',
          country: 'DE',
          city: 'Berlin',
          preferred_currency: 'EUR',
          enabled_feature_flags: '',
        });
        assertReference('main', 'FirmDetails', res.body);
        const listed = await mcp.listTools();
        const names = listed.tools.map((tool) => tool.name);
        expect(names).to.include.members([
          'list_budgets',
          'list_documents',
          'list_notes',
          'get_custom_columns',
          'get_custom_column_options',
          'list_information_requests',
          'list_information_reports',
          'list_funds',
          'list_users',
          'whoami',
        ]);
        expect(names).to.not.include.members(['get_firm_details']);
      });
    });
  });
}
