import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { User } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import { createRepos, inTransaction } from '../db/repos/index.ts';
import type { RunningServer } from '../server/http.ts';
import { finishParse } from '../services/document-parsing.ts';
import { importData } from '../services/import.ts';
import { createNotes } from '../services/notes.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, EVERY_TOOLSET, startTestServer, TestClock } from './helpers/server.ts';

const NOW = '2026-06-01T12:00:00.000Z';

interface FeedEvent {
  id: string;
  type: string;
  occurred_at: string;
  actor: { type: string; id: string | null };
  company_id: string | null;
  data: Record<string, unknown>;
  cursor: string;
}

for (const dialect of dialects) {
  describe(`change events (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;
    /** A user limited to Beta, with a personal token. */
    let limited: { user: User; token: string };

    const call = (method: string, path: string, body?: unknown, token = fx.editor.rest) =>
      api(server.url, path, { token, method, body });

    /** Every event of firm A, oldest first, straight from the table. */
    const stored = () => createRepos(t.db).events.list(fx.firmA.id, { limit: 100_000 });

    /** Reads the whole feed from `after` by following next_cursor; the events and the last cursor. */
    async function drain(after: string | null, query = '', token = fx.editor.rest) {
      const seen: FeedEvent[] = [];
      let cursor = after;
      for (;;) {
        const res = await call(
          'GET',
          `/v1/events/?page_size=7${cursor ? `&after=${cursor}` : ''}${query}`,
          undefined,
          token,
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        seen.push(...res.body.results);
        cursor = res.body.next_cursor;
        if (!res.body.has_more) return { seen, cursor };
      }
    }

    const point = (extra: Record<string, unknown> = {}) => ({
      company_id: fx.companies.acme.id,
      category: 'revenue',
      metric_cadence: 'month',
      date: '2025-01-31',
      value: '1000',
      currency: 'USD',
      ...extra,
    });

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, {
        clock: new TestClock(new Date(NOW)),
        env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET },
      });
      mcp = await mcpClient(server.url, fx.editor.pat);
      const user: User = {
        ...fx.editor.user,
        id: newId(),
        email: 'limited-events@alpha.test',
        all_companies: false,
      };
      await fx.repos.users.create(user, [fx.companies.beta.id]);
      limited = { user, token: await issueToken(fx.repos, user) };
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('records a company, note, metric and cap-table write over REST as events, with the actor and the record', async () => {
      const before = (await stored()).length;
      const company = await call('POST', '/v1/companies/', { name: 'Evently' });
      expect(company.status).to.equal(201);
      expect((await call('PATCH', `/v1/companies/${company.body.id}/`, { city: 'Lyon' })).status).to.equal(
        200,
      );
      expect(
        (await call('POST', '/v1/notes/', [{ company_id: company.body.id, note: 'Hello' }])).status,
      ).to.equal(201);
      const metrics = await call('POST', '/v1/metrics/', [point({ company_id: company.body.id })]);
      expect(metrics.status).to.equal(201);
      const datum = metrics.body[0].id;
      expect((await call('PATCH', `/v1/metrics/${datum}/`, { value: '1200' })).status).to.equal(200);
      expect((await call('DELETE', `/v1/metrics/${datum}/`)).status).to.equal(200);
      const round = await call(
        'POST',
        '/beta/investment/financing-rounds/add/',
        {
          financing_rounds: [
            {
              company_id: company.body.id,
              name: 'Seed',
              closing_date: '2025-01-15',
              pre_money_valuation: { value: '8000000', currency: 'USD' },
              round_size: { value: '2000000', currency: 'USD' },
              fully_diluted_shares: '1000000',
              co_investors: [],
            },
          ],
        },
        fx.admin.rest,
      );
      expect(round.status, JSON.stringify(round.body)).to.equal(201);

      const events = (await stored()).slice(before);
      expect(events.map((e) => e.type)).to.deep.equal([
        'company.created',
        'company.updated',
        'note.created',
        'metric.created',
        'metric.updated',
        'metric.deleted',
        'financing_round.created',
      ]);
      for (const e of events) expect(e.company_id).to.equal(company.body.id);
      expect(events[0]!).to.include({ actor_type: 'application', resource_id: company.body.id });
      expect(events[0]!.data).to.include({ name: 'Evently', slug: 'evently' });
      expect(events[1]!.data).to.include({ city: 'Lyon', name: 'Evently' });
      expect(events[4]!.data).to.deep.include({ category: 'revenue', count: 1 });
      expect(events[4]!.data.datum).to.include({ id: datum, value: '1200' });
      expect(events[6]!.data).to.include({ name: 'Seed', company_id: company.body.id });
    });

    it('writes no event for a batch with one bad row, nor for a write whose transaction fails later', async () => {
      const before = (await stored()).length;
      const bad = await call('POST', '/v1/metrics/', [point(), point({ date: '2025-02-28', value: 'lots' })]);
      expect(bad.status).to.equal(400);
      // A note written inside a transaction that then fails: its row, change-log row and event all go.
      const repos = createRepos(t.db);
      const company = (await repos.companies.find(
        { firmId: fx.firmA.id, companyIds: null },
        { id: fx.companies.acme.id },
      ))!;
      const ctx = {
        clock: { now: () => new Date(NOW) },
        principal: {
          kind: 'user' as const,
          key: `user:${fx.editor.user.id}`,
          tokenId: 'x',
          user: fx.editor.user,
          firm: (await repos.firms.get(fx.firmA.id))!,
          scope: { firmId: fx.firmA.id, companyIds: null },
          scopes: ['read', 'write'] as const,
        },
      };
      const failed = await inTransaction(repos, async (trx) => {
        await createNotes({ ...ctx, repos: trx }, company.id, ['never kept']);
        throw new Error('the outer write fails');
      }).catch((err: Error) => err.message);
      expect(failed).to.equal('the outer write fails');
      expect((await stored()).length).to.equal(before);
      expect(await t.db('notes').where({ note: 'never kept' }).first()).to.equal(undefined);
    });

    it('summarises a bulk metric write as one event per category and cadence, with counts and the date range', async () => {
      const before = (await stored()).length;
      const months = Array.from({ length: 24 }, (_, i) => {
        const d = new Date(Date.UTC(2022, i + 1, 0));
        return d.toISOString().slice(0, 10);
      });
      const items = [
        ...months.map((date, i) => point({ date, value: String(1000 + i) })),
        ...months.map((date, i) => point({ category: 'ebitda', date, value: String(-i) })),
      ];
      expect((await call('POST', '/v1/metrics/', items)).status).to.equal(201);
      const events = (await stored()).slice(before);
      expect(
        events.map((e) => [e.type, e.data.category, e.data.count, e.data.from_date, e.data.to_date]),
      ).to.deep.equal([
        ['metric.created', 'revenue', 24, '2022-01-31', '2023-12-31'],
        ['metric.created', 'ebitda', 24, '2022-01-31', '2023-12-31'],
      ]);
      expect(events[0]!.data).to.not.have.property('datum');
      // Writing the same points again changes nothing and announces nothing.
      expect((await call('POST', '/v1/metrics/', items)).status).to.equal(201);
      expect((await stored()).length).to.equal(before + 2);
    });

    it('records an import as the system, one event per company and category, and a rejected import as none', async () => {
      const firm = (await fx.repos.firms.get(fx.firmA.id))!;
      const before = (await stored()).length;
      const at = (n: number) => ({ where: `metrics[${n}]`, order: n });
      const metric = (n: number, company: string, category: string, date: string) => ({
        ...at(n),
        company_slug: company,
        category,
        date,
        cadence: 'month',
        value: String(n),
        currency: 'USD',
      });
      const data = {
        companies: [
          { where: 'companies[0]', order: 0, slug: 'imported-co', fields: { name: 'Imported Co' } },
        ],
        budgets: [],
        metrics: [
          metric(1, 'imported-co', 'revenue', '2024-01-31'),
          metric(2, 'imported-co', 'revenue', '2024-02-29'),
          metric(3, fx.companies.gamma.slug, 'revenue', '2024-03-31'),
          metric(4, fx.companies.gamma.slug, 'ebitda', '2024-03-31'),
        ],
        notes: [],
        financings: [],
      };
      const rejected = { ...data, metrics: [...data.metrics, metric(5, 'nowhere', 'revenue', '2024-01-31')] };
      const refused = await importData(t.db, firm, rejected, { now: NOW }).catch((err: Error) => err.name);
      expect(refused).to.equal('ImportRejected');
      expect((await stored()).length).to.equal(before);

      await importData(t.db, firm, data, { now: NOW });
      const events = (await stored()).slice(before);
      expect(events.every((e) => e.actor_type === 'system' && e.actor_id === null)).to.equal(true);
      const imported = events[0]!.company_id;
      expect(
        events.map((e) => [e.type, e.company_id, e.data.category ?? e.data.name, e.data.count ?? null]),
      ).to.deep.equal([
        ['company.created', imported, 'Imported Co', null],
        ['metric.created', imported, 'revenue', 2],
        ['metric.created', fx.companies.gamma.id, 'revenue', 1],
        ['metric.created', fx.companies.gamma.id, 'ebitda', 1],
      ]);
    });

    it("lists an import's companies, budgets and notes in the change feed, as created and then as updated", async () => {
      const firm = (await fx.repos.firms.get(fx.firmA.id))!;
      const { cursor } = await drain(null);
      const at = (list: string) => ({ where: `${list}[0]`, order: 0 });
      const bundle = (city: string, color: string) => ({
        companies: [{ ...at('companies'), slug: 'fed-co', fields: { name: 'Fed Co', city } }],
        budgets: [{ ...at('budgets'), company_slug: 'fed-co', name: 'Plan 2026', date: '2026-01-01', color }],
        metrics: [],
        notes: [
          {
            ...at('notes'),
            company_slug: 'fed-co',
            email: fx.editor.user.email,
            note: `Met the founders in ${city}`,
          },
        ],
        financings: [],
      });
      await importData(t.db, firm, bundle('Lyon', '#112233'), { now: NOW });
      await importData(t.db, firm, bundle('Nantes', '#445566'), { now: NOW });
      const { seen } = await drain(cursor);
      const companyId = seen[0]!.company_id;
      expect(seen.every((e) => e.actor.type === 'system' && e.company_id === companyId)).to.equal(true);
      expect(seen.map((e) => [e.type, e.data.city ?? e.data.color ?? e.data.note])).to.deep.equal([
        ['company.created', 'Lyon'],
        ['budget.created', '#112233'],
        ['note.created', 'Met the founders in Lyon'],
        ['company.updated', 'Nantes'],
        ['budget.updated', '#445566'],
        ['note.created', 'Met the founders in Nantes'],
      ]);
      const logged = await t
        .db('change_log')
        .whereIn('entity_id', [companyId!, ...seen.map((e) => String(e.data.id))])
        .orderBy('id')
        .select('entity', 'action');
      expect(logged.map((r) => `${r.entity} ${r.action}`)).to.have.members([
        'companies create',
        'budgets create',
        'notes create',
        'companies update',
        'budgets update',
        'notes create',
      ]);
    });

    it('keeps nothing of an import that fails while writing: no company, budget, note, change-log row or event', async () => {
      const firm = (await fx.repos.firms.get(fx.firmA.id))!;
      const before = (await stored()).length;
      const logged = async () => Number((await t.db('change_log').count({ n: '*' }).first())?.n);
      const loggedBefore = await logged();
      const at = (list: string) => ({ where: `${list}[0]`, order: 0 });
      const data = {
        companies: [{ ...at('companies'), slug: 'halfway-co', fields: { name: 'Halfway Co' } }],
        budgets: [{ ...at('budgets'), company_slug: 'halfway-co', name: 'Plan', date: '2026-01-01' }],
        metrics: [],
        notes: [{ ...at('notes'), company_slug: 'halfway-co', email: fx.editor.user.email, note: 'Kept?' }],
        financings: [],
      };
      // The progress report of the last item written fails: everything before it is in the transaction.
      const onProgress = (done: number, total: number) => {
        if (done === total) throw new Error('the terminal went away');
      };
      const failed = await importData(t.db, firm, data, { now: NOW, onProgress }).catch((err: Error) => err);
      expect(failed).to.be.instanceOf(Error).with.property('message', 'the terminal went away');
      expect(await t.db('companies').where({ slug: 'halfway-co' })).to.deep.equal([]);
      expect(await t.db('budgets').where({ name: 'Plan', date: '2026-01-01' })).to.deep.equal([]);
      expect(await t.db('notes').where({ note: 'Kept?' })).to.deep.equal([]);
      expect((await stored()).length).to.equal(before);
      expect(await logged()).to.equal(loggedBefore);
    });

    it('records a document upload, and its parse, with metadata only', async () => {
      const before = (await stored()).length;
      const form = new FormData();
      form.set('company_id', fx.companies.acme.id);
      form.set(
        'file',
        new Blob([Buffer.from('%PDF-1.4\nquarterly letter')], { type: 'application/pdf' }),
        'letter.pdf',
      );
      const res = await api(server.url, '/v1/documents/', {
        token: fx.editor.rest,
        method: 'POST',
        body: form,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const repo = createRepos(t.db).documentParsing;
      const [job] = await repo.claim({ now: new Date(), leaseMs: 60_000, limit: 1, maxAttempts: 3 });
      expect(job?.id).to.equal(res.body.document_id);
      await finishParse(
        createRepos(t.db),
        job!,
        { state: 'completed', text: 'quarterly letter', format: 'text', pages: null },
        new Date(),
      );
      const events = (await stored()).slice(before);
      expect(events.map((e) => e.type)).to.deep.equal(['document.uploaded', 'document.parsed']);
      expect(events[0]!.data).to.include({ id: res.body.document_id, name: 'letter.pdf', size: 25 });
      expect(events[0]!.data.content_url).to.match(/\/v1\/documents\/.+\/content\/$/);
      expect(events[1]!).to.include({ actor_type: 'system' });
      expect(events[1]!.data).to.include({ parse_state: 'completed', char_count: 16 });
      expect(JSON.stringify(events)).to.not.include('quarterly letter');
    });

    it('pages the feed by cursor in commit order, filters by type and company, and names bad parameters', async () => {
      const all = await stored();
      const { seen, cursor } = await drain(null);
      expect(seen.map((e) => e.id)).to.deep.equal(all.map((e) => e.id));
      const later = await call('GET', `/v1/events/?after=${cursor}`);
      expect(later.body).to.deep.equal({ results: [], next_cursor: cursor, has_more: false });

      const notes = await drain(null, '&types=note.created,company.updated');
      expect(new Set(notes.seen.map((e) => e.type))).to.deep.equal(
        new Set(['note.created', 'company.updated']),
      );
      const repeated = await drain(null, '&types=note.created&types=company.updated');
      expect(repeated.seen.map((e) => e.id)).to.deep.equal(notes.seen.map((e) => e.id));
      const gamma = await drain(null, `&company_id=${fx.companies.gamma.id}`);
      expect(gamma.seen.length).to.be.greaterThan(0);
      expect(gamma.seen.every((e) => e.company_id === fx.companies.gamma.id)).to.equal(true);

      const unknown = await call('GET', '/v1/events/?types=metric.exploded');
      expect(unknown.status).to.equal(400);
      expect(unknown.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['types']);
      const badCursor = await call('GET', '/v1/events/?after=not-a-cursor');
      expect(badCursor.status).to.equal(400);
      expect(badCursor.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['after']);
      const badSince = await call('GET', '/v1/events/?since=yesterday');
      expect(badSince.status).to.equal(400);
      expect(badSince.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['since']);
      const clamped = await call('GET', '/v1/events/?page_size=1000');
      expect(clamped.status).to.equal(200);
      expect(clamped.body.results.length).to.be.at.most(100);
    });

    it('shows a user limited to some companies only the events of those companies', async () => {
      expect(
        (await call('POST', '/v1/notes/', [{ company_id: fx.companies.beta.id, note: 'For Beta' }])).status,
      ).to.equal(201);
      const { seen } = await drain(null, '', limited.token);
      expect(seen.length).to.be.greaterThan(0);
      expect(seen.every((e) => e.company_id === fx.companies.beta.id)).to.equal(true);
      const other = await call(
        'GET',
        `/v1/events/?company_id=${fx.companies.acme.id}`,
        undefined,
        limited.token,
      );
      expect(other.status).to.equal(404);
      // Another firm's reader sees none of firm A's events.
      const { seen: theirs } = await drain(null, '', fx.other.rest);
      expect(theirs.filter((e) => e.company_id !== fx.companies.zeta.id)).to.deep.equal([]);
    });

    it('lets a reader paging with the cursor see every event exactly once while writers keep writing', async () => {
      const { cursor: start } = await drain(null);
      let writing = true;
      const writer = async (n: number) => {
        for (let i = 0; i < 12; i++) {
          const res = await call('POST', '/v1/notes/', [
            { company_id: fx.companies.gamma.id, note: `w${n}-${i}` },
          ]);
          expect(res.status).to.equal(201);
        }
      };
      const writers = Promise.all([writer(1), writer(2), writer(3)]).finally(() => {
        writing = false;
      });
      const seen: FeedEvent[] = [];
      let cursor = start;
      for (;;) {
        const done = !writing;
        const page = await drain(cursor);
        seen.push(...page.seen);
        cursor = page.cursor;
        if (done) break;
      }
      await writers;
      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size).to.equal(ids.length);
      const notes = seen.filter((e) => e.type === 'note.created').map((e) => e.data.note);
      expect(notes.length).to.equal(36);
      const all = await stored();
      const startIndex = all.findIndex((e) => e.id === ids[0]);
      expect(all.slice(startIndex).map((e) => e.id)).to.deep.equal(ids);
    });

    it('answers "what changed since" over MCP with list_changes', async () => {
      const res = await mcp.callTool({
        name: 'list_changes',
        arguments: { since: NOW, company_id: fx.companies.beta.id, types: ['note.created'] },
      });
      expect(res.isError).to.not.equal(true);
      const out = res.structuredContent as { results: FeedEvent[]; next_cursor: string; has_more: boolean };
      expect(out.results.map((e) => e.data.note)).to.deep.equal(['For Beta']);
      const next = await mcp.callTool({
        name: 'list_changes',
        arguments: { after: out.next_cursor, company_id: fx.companies.beta.id },
      });
      expect((next.structuredContent as { results: unknown[] }).results).to.deep.equal([]);
      const written = await mcp.callTool({
        name: 'create_notes',
        arguments: { items: [{ company_id: fx.companies.beta.id, note: 'Over MCP' }] },
      });
      expect(written.isError).to.not.equal(true);
      const after = await mcp.callTool({
        name: 'list_changes',
        arguments: { after: out.next_cursor, company_id: fx.companies.beta.id },
      });
      const events = (after.structuredContent as { results: FeedEvent[] }).results;
      expect(events.map((e) => [e.type, e.actor.type, e.data.note])).to.deep.equal([
        ['note.created', 'user', 'Over MCP'],
      ]);
    });
  });
}
