import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { type EvaluatorDeps, evaluateFirm } from '../alerts/evaluate.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import { markLate } from '../services/information-sending.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, type FixtureUser, makeUser } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const DRAFT = {
  name: 'Q4 2025 update',
  period: '2025-Q4',
  period_start_date: '2025-10-01',
  period_end_date: '2025-12-31',
  due_date: '2026-01-31',
  metrics: [{ category: 'revenue' }, { category: 'cash_in_bank', optional: true }],
  documents: [{ name: 'Board deck', description: 'The deck of the last board meeting' }],
};

const COUNTERS = [
  'completed_count',
  'in_progress_count',
  'not_started_count',
  'partially_complete_count',
  'past_due_count',
] as const;

for (const dialect of dialects) {
  describe(`the collection loop over REST and MCP (${dialect.name}) @db`, function () {
    this.timeout(60000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;
    let limited: FixtureUser;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    let request: string;

    const rest = (path: string, token: string, method = 'GET', body?: unknown) =>
      api(server.url, path, { token, method, body });
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = (await mcp.callTool({ name, arguments: args })) as {
        isError?: boolean;
        structuredContent: Record<string, unknown>;
        content: { text: string }[];
      };
      return res;
    };
    const reportsOf = async (id: string, query = '') =>
      (await rest(`/v1/information-reports/?information_request_id=${id}${query}`, fx.admin.rest)).body
        .results as { id: string; company_id: string; status: string; is_late: boolean }[];

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      limited = await makeUser(
        fx.repos,
        fx.firmA.id,
        'limited-editor@alpha.test',
        'editor',
        { all_companies: false },
        [fx.companies.acme.id],
      );
      server = await startTestServer(t.db, {
        clock,
        env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: 'information,writes,alerts' },
      });
      mcp = await mcpClient(server.url, fx.editor.pat);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('adds company contacts over REST and MCP, one per address and company', async () => {
      const acme = fx.companies.acme.id;
      const created = await rest(`/v1/companies/${acme}/contacts/`, fx.editor.rest, 'POST', {
        name: 'Ada Founder',
        email: 'Ada@Acme.example',
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body).to.include({ company_id: acme, name: 'Ada Founder', email: 'ada@acme.example' });
      const again = await rest(`/v1/companies/${acme}/contacts/`, fx.editor.rest, 'POST', {
        name: 'Ada Again',
        email: 'ada@acme.example',
      });
      expect(again.status).to.equal(409);
      expect(again.body.errors[0].field).to.equal('email');
      const bad = await rest(`/v1/companies/${acme}/contacts/`, fx.editor.rest, 'POST', {
        name: ' ',
        email: 'nope',
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['name', 'email']);
      const viaMcp = await call('create_company_contact', {
        company_id: fx.companies.gamma.id,
        name: 'Gus Gamma',
        email: 'gus@gamma.example',
      });
      expect(viaMcp.isError, viaMcp.content[0]?.text).to.not.equal(true);
      const listed = await call('list_company_contacts', { company_id: acme, response_format: 'detailed' });
      expect((listed.structuredContent.results as { email: string }[]).map((c) => c.email)).to.deep.equal([
        'ada@acme.example',
      ]);
    });

    it('refuses contacts to viewers (403) and of companies the caller cannot see (404)', async () => {
      const acme = fx.companies.acme.id;
      const body = { name: 'Vic Viewer', email: 'vic@acme.example' };
      expect((await rest(`/v1/companies/${acme}/contacts/`, fx.viewer.rest, 'POST', body)).status).to.equal(
        403,
      );
      const gamma = fx.companies.gamma.id;
      expect((await rest(`/v1/companies/${gamma}/contacts/`, limited.rest, 'POST', body)).status).to.equal(
        404,
      );
      expect((await rest(`/v1/companies/${gamma}/contacts/`, limited.rest)).status).to.equal(404);
      expect((await rest(`/v1/companies/${acme}/contacts/`, fx.other.rest)).status).to.equal(404);
    });

    it('drafts a request over REST: 201 in the reference item shape, with what it asks and its companies', async () => {
      const res = await rest('/v1/information-requests/', fx.editor.rest, 'POST', {
        ...DRAFT,
        company_ids: [fx.companies.acme.id, fx.companies.beta.id],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      assertReference('main', 'InformationRequest', res.body);
      request = res.body.id;
      expect(res.body).to.include({ status: 'draft', company_count: 2, sent_at: null, not_started_count: 0 });
      expect(res.body.company_ids).to.have.members([fx.companies.acme.id, fx.companies.beta.id]);
      expect(
        res.body.requested_metrics.map((m: { name: string; time_period: string }) => [m.name, m.time_period]),
      ).to.deep.equal([
        ['revenue', 'quarter'],
        ['cash_in_bank', 'point_in_time'],
      ]);
      expect(res.body.requested_documents[0]).to.include({
        name: 'Board deck',
        description: 'The deck of the last board meeting',
        optional: false,
      });
      expect(res.body.reminder_days).to.deep.equal([-7, 0, 7]);
    });

    it('refuses bad input with a 400 naming each field', async () => {
      const res = await rest('/v1/information-requests/', fx.editor.rest, 'POST', {
        ...DRAFT,
        period_end_date: '2025-09-30',
        metrics: [{ category: 'revenu' }, { category: 'cash_in_bank', time_period: 'quarter' }],
      });
      expect(res.status).to.equal(400);
      const fields = res.body.errors.map((e: { field: string }) => e.field);
      expect(fields).to.deep.equal(['period_end_date', 'metrics[0].category', 'metrics[1].time_period']);
      expect(res.body.errors[1].message).to.include('did you mean "revenue"');
      const schema = await rest('/v1/information-requests/', fx.editor.rest, 'POST', {
        ...DRAFT,
        due_date: '31/01/2026',
      });
      expect(schema.status).to.equal(400);
      expect(schema.body.errors[0].field).to.equal('due_date');
    });

    it('refuses a viewer (403), and answers another firm with 404 as for no request', async () => {
      const viewer = await rest('/v1/information-requests/', fx.viewer.rest, 'POST', DRAFT);
      expect(viewer.status).to.equal(403);
      expect((await rest(`/v1/information-requests/${request}/`, fx.other.rest)).status).to.equal(404);
      expect(
        (await rest(`/v1/information-requests/${request}/send/`, fx.other.rest, 'POST')).status,
      ).to.equal(404);
      const foreign = await rest('/v1/information-requests/', fx.other.rest, 'POST', {
        ...DRAFT,
        company_ids: [fx.companies.acme.id],
      });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.errors[0].field).to.equal('company_ids[0]');
    });

    it('a restricted editor reads the request but cannot change, send, remind, close or delete it (404)', async () => {
      expect((await rest(`/v1/information-requests/${request}/`, limited.rest)).status).to.equal(200);
      const base = `/v1/information-requests/${request}/`;
      expect((await rest(base, limited.rest, 'PATCH', { name: 'Mine now' })).status).to.equal(404);
      for (const action of ['send', 'remind', 'close'])
        expect((await rest(`${base}${action}/`, limited.rest, 'POST')).status, action).to.equal(404);
      expect((await rest(base, limited.rest, 'DELETE')).status).to.equal(404);
      expect((await rest(base, fx.admin.rest)).body).to.include({ status: 'draft', name: DRAFT.name });
    });

    it('sends once over MCP: a report per company, not-started, with items in the spec shape; again changes nothing', async () => {
      const sent = await call('send_information_request', { information_request_id: request });
      expect(sent.isError, sent.content[0]?.text).to.not.equal(true);
      expect(sent.structuredContent).to.include({ status: 'sent', not_started_count: 2 });
      const reached = sent.structuredContent.reports as {
        company_id: string;
        contacts: { email: string }[];
      }[];
      expect(reached.map((r) => [r.company_id, r.contacts.map((c) => c.email)])).to.deep.equal([
        [fx.companies.acme.id, ['ada@acme.example']],
      ]);
      const without = sent.structuredContent.companies_without_contacts as { company_id: string }[];
      expect(without.map((c) => c.company_id)).to.deep.equal([fx.companies.beta.id]);
      const reports = await reportsOf(request);
      expect(reports.map((r) => r.status)).to.deep.equal(['not-started', 'not-started']);
      assertReference('main', 'InformationReport', ...reports);
      const one = await rest(`/v1/information-reports/${reports[0]!.id}/`, fx.admin.rest);
      expect(one.status).to.equal(200);
      expect(
        one.body.metrics.map((m: { name: string; date: string; status: string }) => [
          m.name,
          m.date,
          m.status,
        ]),
      ).to.deep.equal([
        ['revenue', '2025-12-31', 'missing'],
        ['cash_in_bank', '2025-12-31', 'missing'],
      ]);
      const again = await rest(`/v1/information-requests/${request}/send/`, fx.editor.rest, 'POST');
      expect(again.status).to.equal(200);
      expect(again.body.reports).to.deep.equal([]);
      expect(await reportsOf(request)).to.have.length(2);
      const counted = (await rest(`/v1/information-requests/${request}/`, fx.admin.rest)).body;
      expect(counted).to.include({ not_started_count: 2, unanswered_count: 2, past_due_count: 0 });
    });

    it('a sent request keeps its period and items (400 naming them) but takes a new due date and more companies', async () => {
      const base = `/v1/information-requests/${request}/`;
      const frozen = await rest(base, fx.editor.rest, 'PATCH', { period: '2025-Q3', metrics: [] });
      expect(frozen.status).to.equal(400);
      expect(frozen.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['period', 'metrics']);
      const dropped = await rest(base, fx.editor.rest, 'PATCH', { company_ids: [fx.companies.acme.id] });
      expect(dropped.status).to.equal(400);
      const changed = await rest(base, fx.editor.rest, 'PATCH', {
        due_date: '2026-02-15',
        company_ids: [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id],
      });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
      expect(changed.body).to.include({ due_date: '2026-02-15', company_count: 3, not_started_count: 3 });
      const links = await t.db('information_report_links').where('firm_id', fx.firmA.id);
      expect(links.length).to.equal(2);
      for (const l of links) expect(l.expires_at).to.equal('2026-03-17T23:59:59.999Z');
    });

    it('"who has not answered?" then "remind them": two calls over MCP', async () => {
      const waiting = await call('list_information_reports', {
        information_request_id: request,
        submitted: false,
        response_format: 'detailed',
      });
      const companies = (waiting.structuredContent.results as { company_id: string }[]).map(
        (r) => r.company_id,
      );
      expect(companies).to.have.members([fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id]);
      const reminded = await call('remind_information_request', {
        information_request_id: request,
        company_ids: companies,
      });
      expect(reminded.isError, reminded.content[0]?.text).to.not.equal(true);
      const out = reminded.structuredContent as {
        reminded: { company_id: string; contacts: { email: string }[] }[];
        companies_without_contacts: { company_id: string }[];
      };
      expect(out.reminded.map((r) => [r.company_id, r.contacts.map((c) => c.email)])).to.have.deep.members([
        [fx.companies.acme.id, ['ada@acme.example']],
        [fx.companies.gamma.id, ['gus@gamma.example']],
      ]);
      expect(out.companies_without_contacts.map((c) => c.company_id)).to.deep.equal([fx.companies.beta.id]);
      const notAsked = await rest(`/v1/information-requests/${request}/remind/`, fx.editor.rest, 'POST', {
        company_ids: [fx.companies.zeta.id],
      });
      expect(notAsked.status).to.equal(400);
      expect(notAsked.body.errors[0].field).to.equal('company_ids[0]');
    });

    it('once the due date passes, the list shows the reports late, the counters past due and the alert raises', async () => {
      clock.set(new Date('2026-02-20T12:00:00.000Z'));
      const late = await reportsOf(request, '&late=true');
      expect(late).to.have.length(3);
      const counted = (await rest(`/v1/information-requests/${request}/`, fx.admin.rest)).body;
      expect(counted).to.include({ past_due_count: 3, not_started_count: 3 });
      const rule = await rest('/v1/alert-rules/', fx.editor.rest, 'POST', {
        figure: 'late_information_report',
        op: 'gt',
        value: 0,
      });
      expect(rule.status).to.equal(201);
      const deps: EvaluatorDeps = { repos: fx.repos, clock, logger: createLogger('silent') };
      await evaluateFirm(deps, fx.firmA.id, 'all');
      const alerts = (await rest(`/v1/alerts/?rule_id=${rule.body.id}`, fx.admin.rest)).body.results as {
        company_id: string;
        value: string;
      }[];
      expect(alerts.map((a) => [a.company_id, a.value])).to.have.deep.members([
        [fx.companies.acme.id, '5'],
        [fx.companies.beta.id, '5'],
        [fx.companies.gamma.id, '5'],
      ]);
    });

    it('announces each late report once (information_report.late), as the scheduled pass will', async () => {
      const firm = (await fx.repos.firms.get(fx.firmA.id))!;
      const late = await markLate({ repos: fx.repos, clock }, firm);
      expect(late.map((l) => [l.company_id, l.days_late])).to.have.deep.members([
        [fx.companies.acme.id, 5],
        [fx.companies.beta.id, 5],
        [fx.companies.gamma.id, 5],
      ]);
      expect(await markLate({ repos: fx.repos, clock }, firm)).to.deep.equal([]);
      const events = await fx.repos.events.list(fx.firmA.id, {
        types: ['information_report.late'],
        limit: 10,
      });
      expect(events.map((e) => [e.company_id, e.actor_type, e.data.due_date])).to.have.deep.members([
        [fx.companies.acme.id, 'system', '2026-02-15'],
        [fx.companies.beta.id, 'system', '2026-02-15'],
        [fx.companies.gamma.id, 'system', '2026-02-15'],
      ]);
    });

    it('the chase prompt names the tools that find the late companies and remind them', async () => {
      const got = await mcp.getPrompt({ name: 'chase_late_information_requests', arguments: {} });
      const text = (got.messages[0]!.content as { text: string }).text;
      for (const tool of [
        'list_information_requests',
        'list_information_reports',
        'list_company_contacts',
        'remind_information_request',
      ])
        expect(text).to.include(tool);
      const requests = await call('list_information_requests', {
        status: 'sent',
        response_format: 'detailed',
      });
      const listed = requests.structuredContent.results as { id: string; past_due_count: number }[];
      expect(listed.map((r) => [r.id, r.past_due_count])).to.deep.equal([[request, 3]]);
    });

    it('closing stops reminders (409) and the alert; the counters still equal the reports', async () => {
      const closed = await rest(`/v1/information-requests/${request}/close/`, fx.editor.rest, 'POST');
      expect(closed.status).to.equal(200);
      expect(closed.body.status).to.equal('closed');
      expect(closed.body.closed_at).to.equal(clock.now().toISOString());
      expect(
        (await rest(`/v1/information-requests/${request}/remind/`, fx.editor.rest, 'POST')).status,
      ).to.equal(409);
      const reports = await reportsOf(request);
      const counted = closed.body as Record<(typeof COUNTERS)[number], number>;
      const tally = (s: string) => reports.filter((r) => r.status === s).length;
      expect([counted.completed_count, counted.not_started_count]).to.deep.equal([
        tally('completed'),
        tally('not-started'),
      ]);
      await evaluateFirm({ repos: fx.repos, clock, logger: createLogger('silent') }, fx.firmA.id, 'all');
      expect((await rest('/v1/alerts/', fx.admin.rest)).body.results).to.deep.equal([]);
    });

    it('copies a request for the next quarter, then deletes it', async () => {
      const copy = await call('create_information_request', {
        copy_from: request,
        name: 'Q1 2026 update',
        period: '2026-Q1',
        period_start_date: '2026-01-01',
        period_end_date: '2026-03-31',
        due_date: '2026-04-30',
      });
      expect(copy.isError, copy.content[0]?.text).to.not.equal(true);
      const made = copy.structuredContent as {
        id: string;
        status: string;
        copied_from: string;
        company_ids: string[];
        requested_metrics: { name: string }[];
      };
      expect(made).to.include({ status: 'draft', copied_from: request });
      expect(made.company_ids).to.have.length(3);
      expect(made.requested_metrics.map((m) => m.name)).to.deep.equal(['revenue', 'cash_in_bank']);
      const del = await rest(`/v1/information-requests/${made.id}/`, fx.editor.rest, 'DELETE');
      expect(del.status).to.equal(200);
      expect((await rest(`/v1/information-requests/${made.id}/`, fx.editor.rest)).status).to.equal(404);
    });

    it('every step is in the change feed, with the request or report it changed', async () => {
      const res = await rest(
        '/v1/events/?types=information_request.created,information_request.updated,information_request.sent,information_request.closed,information_request.deleted,information_report.sent,information_report.reminded,contact.created',
        fx.admin.rest,
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const types = (res.body.results as { type: string }[]).map((e) => e.type);
      expect(types).to.deep.equal([
        'contact.created',
        'contact.created',
        'information_request.created',
        'information_report.sent',
        'information_report.sent',
        'information_request.sent',
        'information_request.updated',
        'information_report.sent',
        'information_report.reminded',
        'information_report.reminded',
        'information_request.closed',
        'information_request.created',
        'information_request.deleted',
      ]);
    });
  });
}
