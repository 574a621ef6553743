import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { DEMO, seedDemo } from '../db/seeds/demo.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const TODAY = '2026-06-01';

interface Report {
  company_id: string;
  company_name: string;
  due_date: string;
  is_late: boolean;
  submitted_at: string | null;
  status: string;
}
interface Request {
  id: string;
  due_date: string;
  completed_count: number;
  in_progress_count: number;
  not_started_count: number;
  partially_complete_count: number;
  past_due_count: number;
  unanswered_count: number;
}

const bucket = (status: string) => {
  const s = status.toLowerCase().replace(/_/g, '-');
  return ['completed', 'in-progress', 'partially-complete'].includes(s) ? s : 'not-started';
};

for (const dialect of dialects) {
  describe(`information requests that add up, on the demo data (${dialect.name}) @db`, function () {
    this.timeout(60000);
    let t: TestDb;
    let server: RunningServer;
    let mcp: Client;
    let token: string;

    const call = async <T>(name: string, args: Record<string, unknown>) =>
      (
        (await mcp.callTool({ name, arguments: { response_format: 'detailed', ...args } })) as unknown as {
          structuredContent: T;
        }
      ).structuredContent;

    async function allReports(requestId: string, filter: Record<string, unknown> = {}) {
      const reports: Report[] = [];
      let without: { company_id: string; company_name: string; reason: string }[] = [];
      for (let page = 1; ; page++) {
        const out = await call<{
          has_more: boolean;
          results: Report[];
          companies_without_report?: typeof without;
        }>('list_information_reports', { information_request_id: requestId, page, ...filter });
        reports.push(...out.results);
        without = out.companies_without_report ?? [];
        if (!out.has_more) break;
      }
      return { reports, without };
    }

    before(async () => {
      t = await dialect.open();
      await seedDemo(t.db);
      server = await startTestServer(t.db, { clock: new TestClock(new Date(`${TODAY}T12:00:00.000Z`)) });
      const user = (await server.repos.users.getByEmail(DEMO.email))!;
      token = await issueToken(server.repos, user);
      mcp = await mcpClient(server.url, token);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('gives every request counters equal to the tallies of its own reports', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      expect(requests.length).to.be.greaterThan(0);
      let checked = 0;
      for (const request of requests) {
        const { reports } = await allReports(request.id);
        const tally = (s: string) => reports.filter((r) => bucket(r.status) === s).length;
        expect(request.completed_count, request.id).to.equal(tally('completed'));
        expect(request.in_progress_count, request.id).to.equal(tally('in-progress'));
        expect(request.not_started_count, request.id).to.equal(tally('not-started'));
        expect(request.partially_complete_count, request.id).to.equal(tally('partially-complete'));
        const pastDue =
          request.due_date < TODAY ? reports.filter((r) => bucket(r.status) !== 'completed').length : 0;
        expect(request.past_due_count, request.id).to.equal(pastDue);
        checked += reports.length;
      }
      expect(checked).to.be.greaterThan(0);
    });

    it('counts as unanswered the reports not submitted yet', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      let unanswered = 0;
      for (const request of requests) {
        const { reports } = await allReports(request.id);
        const expected = reports.filter((r) => r.submitted_at === null).length;
        expect(request.unanswered_count, request.id).to.equal(expected);
        unanswered += expected;
      }
      expect(unanswered).to.be.greaterThan(0);
    });

    it("filters reports by status, each status giving as many reports as the request's count", async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      const countOf = {
        completed: 'completed_count',
        'partially-complete': 'partially_complete_count',
        'in-progress': 'in_progress_count',
        'not-started': 'not_started_count',
      } as const;
      for (const request of requests) {
        for (const [status, field] of Object.entries(countOf)) {
          const { reports } = await allReports(request.id, { status });
          expect(reports.length, `${request.id} ${status}`).to.equal(request[field]);
          for (const r of reports) expect(bucket(r.status)).to.equal(status);
        }
      }
    });

    it('takes several statuses at once: the reports of each, not-started included', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      for (const request of requests) {
        const { reports } = await allReports(request.id);
        const wanted = ['completed', 'not-started'];
        const both = await allReports(request.id, { status: wanted.join(',') });
        const ids = (list: Report[]) => list.map((r) => JSON.stringify(r)).sort();
        expect(ids(both.reports), request.id).to.deep.equal(
          ids(reports.filter((r) => wanted.includes(bucket(r.status)))),
        );
        expect(both.reports.length).to.equal(request.completed_count + request.not_started_count);
      }
    });

    it("orders reports by their request's due date, latest first, then by company name", async () => {
      const reports: Report[] = [];
      for (let page = 1; ; page++) {
        const out = await call<{ has_more: boolean; results: Report[] }>('list_information_reports', {
          page,
          per_page: 20,
        });
        reports.push(...out.results);
        if (!out.has_more) break;
      }
      const key = (r: Report) => [r.due_date, r.company_name.toLowerCase()] as const;
      const sorted = [...reports].sort((a, b) => {
        const [da, na] = key(a);
        const [db, nb] = key(b);
        return da === db ? (na < nb ? -1 : na > nb ? 1 : 0) : da < db ? 1 : -1;
      });
      expect(reports.map(key)).to.deep.equal(sorted.map(key));
      const unsubmittedCurrent = reports.findIndex((r) => r.submitted_at === null);
      const oldSubmitted = reports.findIndex(
        (r) => r.submitted_at !== null && r.due_date < reports[0]!.due_date,
      );
      if (
        unsubmittedCurrent >= 0 &&
        oldSubmitted >= 0 &&
        reports[unsubmittedCurrent]!.due_date === reports[0]!.due_date
      )
        expect(unsubmittedCurrent).to.be.below(oldSubmitted);
    });

    it('orders company names case-insensitively, alike on both databases', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      const ranked = await Promise.all(
        requests.map(async (r) => ({ id: r.id, ...(await allReports(r.id)) })),
      );
      const reported = ranked.find((r) => r.reports.length >= 3)!;
      const unasked = ranked.find((r) => r.without.length >= 3)!;
      const names = ['acme', 'Zeta', 'beta'];
      const renamed = [
        ...reported.reports.slice(0, 3).map((r) => r.company_id),
        ...unasked.without.slice(0, 3).map((c) => c.company_id),
      ];
      const before = await t.db('companies').whereIn('id', renamed).select('id', 'name');
      try {
        for (const [i, id] of renamed.entries())
          await t
            .db('companies')
            .where({ id })
            .update({ name: `${names[i % 3]} ${Math.floor(i / 3)}` });
        const listed = (await allReports(reported.id)).reports
          .map((r) => r.company_name)
          .filter((n) => n.endsWith(' 0'));
        const without = (await allReports(unasked.id)).without
          .map((c) => c.company_name)
          .filter((n) => n.endsWith(' 1'));
        expect(listed).to.deep.equal(['acme 0', 'beta 0', 'Zeta 0']);
        expect(without).to.deep.equal(['acme 1', 'beta 1', 'Zeta 1']);
      } finally {
        for (const c of before) await t.db('companies').where({ id: c.id }).update({ name: c.name });
      }
    });

    it('names the late companies of the current request in two concise calls: one row per report, items counted', async () => {
      const requests = (await mcp.callTool({ name: 'list_information_requests', arguments: {} }))
        .structuredContent as {
        results: (Request & { item_set?: number })[];
        same_in_every_result?: { item_set?: number };
        item_sets: { documents: string[]; metrics: string[] }[];
      };
      const current = requests.results.find((r) => r.due_date < TODAY)!;
      expect(current).to.not.have.property('requested_documents');
      const detailedRequests = await call<{
        results: (Request & {
          requested_documents: { name: string }[];
          requested_metrics: { name: string }[];
        })[];
      }>('list_information_requests', {});
      for (const [i, r] of detailedRequests.results.entries()) {
        const set =
          requests.item_sets[requests.results[i]!.item_set ?? requests.same_in_every_result!.item_set!]!;
        expect(set.documents.map((d) => d.replace(/ \(.*\)$/, ''))).to.deep.equal(
          r.requested_documents.map((d) => d.name),
        );
        expect(set.metrics.map((m) => m.replace(/ \(.*\)$/, ''))).to.deep.equal(
          r.requested_metrics.map((m) => m.name),
        );
      }
      expect(requests.item_sets.length).to.be.below(requests.results.length);
      const res = await mcp.callTool({
        name: 'list_information_reports',
        arguments: { information_request_id: current.id, late: true },
      });
      const chars = (res.content as { text: string }[])[0]!.text.length;
      const out = res.structuredContent as {
        same_in_every_result: Record<string, unknown>;
        reports: { columns: string[]; rows: unknown[][] };
      };
      expect(out.same_in_every_result).to.include({
        information_request_id: current.id,
        due_date: current.due_date,
        is_late: true,
      });
      const detailed = (await allReports(current.id, { late: true })).reports as (Report & {
        id: string;
        documents: { status: string }[];
        metrics: { status: string }[];
      })[];
      expect(detailed.length).to.be.greaterThan(0);
      const rows = out.reports.rows.map((row) => ({
        ...Object.fromEntries(out.reports.columns.map((c, i) => [c, row[i]])),
        ...out.same_in_every_result,
      }));
      const done = (items: { status: string }[]) => items.filter((i) => i.status === 'completed').length;
      expect(rows).to.deep.equal(
        detailed.map((r) => ({
          company_id: r.company_id,
          company_name: r.company_name,
          status: r.status,
          submitted_at: r.submitted_at,
          information_request_id: current.id,
          due_date: current.due_date,
          is_late: true,
          documents_completed: done(r.documents),
          documents_requested: r.documents.length,
          metrics_completed: done(r.metrics),
          metrics_requested: r.metrics.length,
        })),
      );
      // 15 late companies of a 40-company portfolio stay within 2,500 characters.
      const rowChars = JSON.stringify(out.reports.rows).length;
      const fifteen = chars - rowChars + (rowChars / rows.length) * 15;
      expect(fifteen, `${chars} characters for ${rows.length} rows`).to.be.at.most(2_500);
    });

    it('filters reports by lateness exactly as is_late says, late submissions included', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      let submittedLate = 0;
      for (const request of requests) {
        const { reports } = await allReports(request.id);
        const late = await allReports(request.id, { late: true });
        const onTime = await allReports(request.id, { late: false });
        const ids = (list: Report[]) => list.map((r) => JSON.stringify(r)).sort();
        expect(ids(late.reports), request.id).to.deep.equal(ids(reports.filter((r) => r.is_late)));
        expect(ids(onTime.reports), request.id).to.deep.equal(ids(reports.filter((r) => !r.is_late)));
        submittedLate += late.reports.filter((r) => r.submitted_at !== null).length;
      }
      expect(submittedLate, 'the demo data has reports submitted after their due date').to.be.greaterThan(0);
    });

    it('gives each report its company name, the due date and whether it is late', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      const { results: companies } = await call<{ results: { id: string; name: string }[] }>(
        'list_companies',
        {},
      );
      const names = new Map(companies.map((c) => [c.id, c.name]));
      let late = 0;
      for (const request of requests) {
        const { reports } = await allReports(request.id);
        for (const report of reports) {
          expect(report.company_name).to.equal(names.get(report.company_id));
          expect(report.due_date).to.equal(request.due_date);
          const expected =
            report.submitted_at === null
              ? TODAY > request.due_date
              : report.submitted_at.slice(0, 10) > request.due_date;
          expect(report.is_late, JSON.stringify(report)).to.equal(expected);
          if (report.is_late) late += 1;
        }
      }
      expect(late).to.be.greaterThan(0);
    });

    it('explains the companies without a report as not asked, and they complete the portfolio', async () => {
      const { results: requests } = await call<{ results: Request[] }>('list_information_requests', {});
      const { count } = await call<{ count: number }>('list_companies', {});
      for (const request of requests) {
        const { reports, without } = await allReports(request.id);
        const reported = new Set(reports.map((r) => r.company_id));
        for (const company of without) {
          expect(company.reason).to.equal('not_asked');
          expect(reported.has(company.company_id)).to.equal(false);
        }
        expect(reported.size + without.length, request.id).to.equal(count);
      }
    });

    it('keeps the REST reports valid against the reference with the new fields', async () => {
      const res = await api(server.url, '/v1/information-reports/', { token });
      expect(res.status).to.equal(200);
      expect(res.body.results[0]).to.include.keys('company_name', 'due_date', 'is_late');
      assertReference('main', 'InformationReport', ...res.body.results);
      const requests = await api(server.url, '/v1/information-requests/', { token });
      assertReference('main', 'InformationRequest', ...requests.body.results);
    });

    it('refuses over MCP a status that is not a list of known statuses, naming the field', async () => {
      const refusal = async (status: unknown) => {
        const res = await mcp.callTool({ name: 'list_information_reports', arguments: { status } });
        expect(res.isError, JSON.stringify(status)).to.equal(true);
        return (res.content as { text: string }[])[0]!.text;
      };
      expect(await refusal(['completed'])).to.match(/status: .*expected string/);
      expect(await refusal('completed,done')).to.match(
        /status: one status or several comma-separated, of .*not-started/,
      );
    });

    it('filters REST reports by one status, a comma-separated list or a repeated status', async () => {
      const reports = async (query: string) => {
        const res = await api(server.url, `/v1/information-reports/?page_size=100&${query}`, { token });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return {
          count: res.body.count as number,
          statuses: new Set((res.body.results as Report[]).map((r) => bucket(r.status))),
        };
      };
      const completed = await reports('status=completed');
      const notStarted = await reports('status=not-started');
      expect([...completed.statuses]).to.deep.equal(['completed']);
      expect([...notStarted.statuses]).to.deep.equal(['not-started']);
      for (const query of ['status=completed,not-started', 'status=completed, not-started']) {
        const both = await reports(query);
        expect(both.count, query).to.equal(completed.count + notStarted.count);
        for (const s of both.statuses) expect(['completed', 'not-started']).to.include(s);
      }
      // Repeated, as every repeatable parameter: the same reports as the comma-separated list.
      const commaSeparated = await reports('status=completed,not-started');
      for (const query of [
        'status=completed&status=not-started',
        'status[]=completed&status[]=not-started',
        'status%5B%5D=completed&status%5B%5D=not-started',
      ]) {
        const repeated = await reports(query);
        expect(repeated.count, query).to.equal(commaSeparated.count);
        expect([...repeated.statuses].sort(), query).to.deep.equal(['completed', 'not-started']);
      }
      const mixed = await reports('status=completed,in-progress&status=not-started');
      expect(mixed.count).to.equal(commaSeparated.count + (await reports('status=in-progress')).count);
      const bad = await api(server.url, '/v1/information-reports/?status=done', { token });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors[0].field).to.match(/^status/);
      expect(bad.body.errors[0].message).to.include('not-started');
    });
  });
}
