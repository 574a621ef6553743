import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { type EvaluatorDeps, evaluateFirm } from '../alerts/evaluate.ts';
import { newId } from '../db/ids.ts';
import { openDb } from '../db/knex.ts';
import { createRepos, inTransaction } from '../db/repos/index.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, type FixtureUser, makeUser } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, EVERY_TOOLSET, startTestServer, TestClock } from './helpers/server.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';
const months = ['2025-10', '2025-11', '2025-12'];
const monthEnd = (ym: string) => `${ym}-${ym.endsWith('11') ? '30' : '31'}`;

interface Listed {
  company_id: string;
  company_name: string;
  rule_id: string;
  figure: string;
  op: string;
  threshold: number | boolean;
  value: string | null;
  since: string;
}

for (const dialect of dialects) {
  describe(`KPI alert rules (${dialect.name}) @db`, function () {
    this.timeout(30000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;
    let deps: EvaluatorDeps;
    const clock = new TestClock(new Date('2026-01-05T12:00:00.000Z'));
    /** The cash datum of each company, by company id. */
    const cash = new Map<string, string>();
    let runwayRule: string;

    const rest = (path: string, token: string, method = 'GET', body?: unknown) =>
      api(server.url, path, { token, method, body });
    const alertEvents = async (type: string) =>
      (await fx.repos.events.list(fx.firmA.id, { types: [type], limit: 1000 })).map((e) => e.data);
    const listAlerts = async (token = fx.admin.rest, query = '') => {
      const res = await rest(`/v1/alerts/${query}`, token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.results as Listed[];
    };
    const pass = (mode: 'changes' | 'all') => evaluateFirm(deps, fx.firmA.id, mode);

    /** Changes a company's cash as a write would: the datum and its event in one transaction. */
    async function setCash(companyId: string, value: string) {
      await inTransaction(fx.repos, async (trx) => {
        await trx.db('metric_data').where('id', cash.get(companyId)!).update({ value });
        await trx.events.append({
          firmId: fx.firmA.id,
          type: 'metric.updated',
          companyId,
          actorType: 'user',
          actorId: fx.editor.user.id,
          occurredAt: clock.now().toISOString(),
          resourceType: 'metric',
          resourceId: cash.get(companyId)!,
          data: { id: cash.get(companyId), value },
        });
      });
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      // Net burn of 100,000 a month: runway is cash / 100,000 months (Acme 6, Beta 20, Gamma 8).
      const cashOf = { acme: '600000.00', beta: '2000000.00', gamma: '800000.00' };
      for (const [key, value] of Object.entries(cashOf)) {
        const companyId = fx.companies[key as keyof typeof cashOf].id;
        for (const ym of months)
          await insertDatum(t.db, {
            firmId: fx.firmA.id,
            companyId,
            category: 'net_burn',
            value: '100000.00',
            date: monthEnd(ym),
          });
        cash.set(
          companyId,
          await insertDatum(t.db, {
            firmId: fx.firmA.id,
            companyId,
            category: 'cash_in_bank',
            value,
            date: '2025-12-31',
            cadence: 'point_in_time',
          }),
        );
      }
      server = await startTestServer(t.db, { clock, env: { METRICS_TOKEN } });
      mcp = await mcpClient(server.url, fx.admin.pat);
      deps = { repos: fx.repos, clock, logger: createLogger('silent') };
    });

    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('an editor creates a rule over REST; it fires once per company whose figure meets it', async () => {
      const res = await rest('/v1/alert-rules/', fx.editor.rest, 'POST', {
        name: 'Runway under 9 months',
        figure: 'runway_months',
        op: 'lt',
        value: 9,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.include({ figure: 'runway_months', op: 'lt', value: 9, fund_id: null });
      runwayRule = res.body.id;

      const first = await pass('changes');
      expect(first).to.include({ ran: true, daily: false, triggered: 2, cleared: 0 });
      const open = await listAlerts();
      expect(open.map((a) => a.company_name).sort()).to.deep.equal(['Acme Analytics', 'Gamma Grid']);
      const acme = open.find((a) => a.company_id === fx.companies.acme.id)!;
      expect(acme).to.include({ rule_id: runwayRule, figure: 'runway_months', op: 'lt', threshold: 9 });
      expect(Number(acme.value)).to.equal(6);
      expect(acme.since).to.equal(clock.now().toISOString());

      const triggered = await alertEvents('alert.triggered');
      expect(triggered).to.have.length(2);
      expect(triggered.find((e) => e.company_id === fx.companies.gamma.id)).to.include({
        rule_id: runwayRule,
        figure: 'runway_months',
        threshold: 9,
      });
    });

    it('exactly one alert.triggered per company while the alert stays open, whichever pass runs', async () => {
      expect(await pass('changes')).to.include({ triggered: 0, cleared: 0 });
      expect(await pass('all')).to.include({ daily: true, triggered: 0, cleared: 0 });
      // A change that keeps the condition true (runway 6 → 5) re-evaluates without firing again.
      await setCash(fx.companies.acme.id, '500000.00');
      expect(await pass('changes')).to.include({ triggered: 0, cleared: 0 });
      expect(await alertEvents('alert.triggered')).to.have.length(2);
      const acme = (await listAlerts(fx.admin.rest, `?company_id=${fx.companies.acme.id}`))[0]!;
      expect(Number(acme.value)).to.equal(5);
    });

    it('list_alerts over MCP gives the open alerts; the rule writes are listed only with write tools', async () => {
      const { tools } = await mcp.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).to.include('list_alerts');
      expect(names).to.not.include('create_alert_rule');
      const res = await mcp.callTool({ name: 'list_alerts', arguments: { rule_id: runwayRule } });
      expect(res.isError).to.not.equal(true);
      const out = res.structuredContent as { count: number; results: Listed[] };
      expect(out.count).to.equal(2);
    });

    it('with write tools on, an editor creates a rule over MCP and a bad one names its field', async () => {
      const node = await startTestServer(t.db, {
        clock,
        env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET },
      });
      const client = await mcpClient(node.url, fx.editor.pat);
      try {
        const ok = await client.callTool({
          name: 'create_alert_rule',
          arguments: {
            figure: 'revenue_growth_yoy',
            op: 'lt',
            value: 0,
            company_ids: [fx.companies.beta.id],
          },
        });
        expect(ok.isError, JSON.stringify(ok.content)).to.not.equal(true);
        const rule = ok.structuredContent as { id: string; name: string };
        expect(rule.name).to.equal('revenue_growth_yoy lt 0');
        const bad = await client.callTool({
          name: 'create_alert_rule',
          arguments: { figure: 'runway_months', op: 'lt', value: true },
        });
        expect(bad.isError).to.equal(true);
        expect((bad.content as { text: string }[])[0]!.text).to.match(/value/);
        expect((await rest(`/v1/alert-rules/${rule.id}/`, fx.admin.rest, 'DELETE')).status).to.equal(200);
      } finally {
        await client.close();
        await node.close();
      }
    });

    it('a viewer may list rules and alerts but not create, change or delete rules', async () => {
      const created = await rest('/v1/alert-rules/', fx.viewer.rest, 'POST', {
        figure: 'runway_months',
        op: 'lt',
        value: 3,
      });
      expect(created.status).to.equal(403);
      const changed = await rest(`/v1/alert-rules/${runwayRule}/`, fx.viewer.rest, 'PATCH', { value: 3 });
      expect(changed.status).to.equal(403);
      const deleted = await rest(`/v1/alert-rules/${runwayRule}/`, fx.viewer.rest, 'DELETE');
      expect(deleted.status).to.equal(403);
      const rules = await rest('/v1/alert-rules/', fx.viewer.rest);
      expect(rules.body.results.map((r: { id: string }) => r.id)).to.deep.equal([runwayRule]);
      expect(await listAlerts(fx.viewer.rest)).to.have.length(2);
    });

    it('a user limited to some companies sees only their alerts', async () => {
      const seen = await listAlerts(fx.restricted.rest);
      expect(seen.map((a) => a.company_id)).to.deep.equal([fx.companies.acme.id]);
      expect(await listAlerts(fx.restricted.rest, `?company_id=${fx.companies.gamma.id}`)).to.deep.equal([]);
    });

    describe('an editor limited to some companies', () => {
      let limited: FixtureUser;
      let writer: RunningServer;
      let client: Client;
      const adminRule = async (body: Record<string, unknown>) => {
        const res = await rest('/v1/alert-rules/', fx.admin.rest, 'POST', body);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        return res.body as { id: string; name: string; op: string; value: number | boolean };
      };
      const mcpText = async (name: string, args: Record<string, unknown>) => {
        const res = await client.callTool({ name, arguments: args });
        return { isError: res.isError === true, text: (res.content as { text: string }[])[0]!.text };
      };

      before(async () => {
        limited = await makeUser(
          fx.repos,
          fx.firmA.id,
          'limited-editor@alpha.test',
          'editor',
          { all_companies: false },
          [fx.companies.acme.id],
        );
        writer = await startTestServer(t.db, {
          clock,
          env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET },
        });
        client = await mcpClient(writer.url, limited.pat);
      });
      after(async () => {
        await client?.close();
        await writer?.close();
      });

      it('cannot change or delete a firm-wide rule, nor one whose fund or list reaches others: each answers as an unknown rule, over REST and MCP', async () => {
        const { acme, gamma } = fx.companies;
        const rules = {
          firmWide: await adminRule({ name: 'admin-stale', figure: 'stale', op: 'eq', value: true }),
          fund: await adminRule({ figure: 'runway_months', op: 'lt', value: 1, fund_id: fx.fundA }),
          list: await adminRule({
            figure: 'runway_months',
            op: 'lt',
            value: 1,
            company_ids: [acme.id, gamma.id],
          }),
        };
        const unknown = newId();
        const as = (text: string, id: string) => text.replaceAll(unknown, id);
        const patchUnknown = await rest(`/v1/alert-rules/${unknown}/`, limited.rest, 'PATCH', {
          name: 'renamed',
        });
        const deleteUnknown = await rest(`/v1/alert-rules/${unknown}/`, limited.rest, 'DELETE');
        const mcpUpdateUnknown = await mcpText('update_alert_rule', { rule_id: unknown, name: 'renamed' });
        const mcpDeleteUnknown = await mcpText('delete_alert_rule', { rule_id: unknown });
        expect(patchUnknown.status).to.equal(404);
        expect(mcpDeleteUnknown.isError).to.equal(true);
        for (const [kind, rule] of Object.entries(rules)) {
          for (const change of [{ name: 'renamed' }, { op: 'gt', value: 1000 }, { company_ids: [acme.id] }]) {
            const patched = await rest(`/v1/alert-rules/${rule.id}/`, limited.rest, 'PATCH', change);
            expect(patched.status, kind).to.equal(404);
            expect(patched.body, kind).to.deep.equal({
              ...patchUnknown.body,
              detail: as(patchUnknown.body.detail, rule.id),
              request_id: patched.body.request_id,
            });
          }
          const deleted = await rest(`/v1/alert-rules/${rule.id}/`, limited.rest, 'DELETE');
          expect(deleted.status, kind).to.equal(404);
          expect(deleted.body.detail, kind).to.equal(as(deleteUnknown.body.detail, rule.id));
          const updated = await mcpText('update_alert_rule', { rule_id: rule.id, name: 'renamed' });
          expect(updated, kind).to.deep.equal({ isError: true, text: as(mcpUpdateUnknown.text, rule.id) });
          const removed = await mcpText('delete_alert_rule', { rule_id: rule.id });
          expect(removed, kind).to.deep.equal({ isError: true, text: as(mcpDeleteUnknown.text, rule.id) });
          // Reading stays as it was: the rule is listed, with only the companies they can see.
          const seen = await rest(`/v1/alert-rules/${rule.id}/`, limited.rest);
          expect(seen.status, kind).to.equal(200);
          expect(JSON.stringify(seen.body), kind).to.not.include(gamma.id);
          const stored = await rest(`/v1/alert-rules/${rule.id}/`, fx.admin.rest);
          expect(stored.body, kind).to.include({ name: rule.name, op: rule.op, value: rule.value });
        }
        for (const rule of Object.values(rules))
          expect((await rest(`/v1/alert-rules/${rule.id}/`, fx.admin.rest, 'DELETE')).status).to.equal(200);
      });

      it('changes and deletes a rule within their companies, over REST and MCP, and cannot widen one beyond them', async () => {
        const { acme } = fx.companies;
        const mine = await adminRule({ figure: 'runway_months', op: 'lt', value: 1, company_ids: [acme.id] });
        const renamed = await rest(`/v1/alert-rules/${mine.id}/`, limited.rest, 'PATCH', {
          name: 'Acme runway',
        });
        expect(renamed.status, JSON.stringify(renamed.body)).to.equal(200);
        expect(renamed.body).to.include({ name: 'Acme runway' });
        const viaMcp = await mcpText('update_alert_rule', { rule_id: mine.id, value: 2 });
        expect(viaMcp.isError, viaMcp.text).to.equal(false);
        // Over every company, or a fund holding companies they cannot see: changed to, or created.
        const widen: [Record<string, unknown>, Record<string, unknown>, string][] = [
          [{ company_ids: null }, {}, 'company_ids'],
          [{ company_ids: null, fund_id: fx.fundA }, { fund_id: fx.fundA }, 'fund_id'],
        ];
        for (const [change, scope, field] of widen) {
          const res = await rest(`/v1/alert-rules/${mine.id}/`, limited.rest, 'PATCH', change);
          expect(res.status, JSON.stringify(change)).to.equal(400);
          expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([field]);
          const body = { figure: 'stale', op: 'eq', value: true, ...scope };
          const created = await rest('/v1/alert-rules/', limited.rest, 'POST', body);
          expect(created.status, JSON.stringify(body)).to.equal(400);
          expect(created.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([field]);
        }
        const stored = await rest(`/v1/alert-rules/${mine.id}/`, fx.admin.rest);
        expect(stored.body).to.include({ name: 'Acme runway', value: 2 });
        expect(stored.body.company_ids).to.deep.equal([acme.id]);
        expect(await mcpText('delete_alert_rule', { rule_id: mine.id })).to.include({ isError: false });
        const another = await adminRule({ figure: 'stale', op: 'eq', value: true, company_ids: [acme.id] });
        expect((await rest(`/v1/alert-rules/${another.id}/`, limited.rest, 'DELETE')).status).to.equal(200);
        expect((await rest(`/v1/alert-rules/${another.id}/`, fx.admin.rest)).status).to.equal(404);
      });
    });

    it('bad rules are refused with a 400 naming each field, and nothing is stored', async () => {
      const before = (await rest('/v1/alert-rules/', fx.admin.rest)).body.count;
      const cases: [Record<string, unknown>, string][] = [
        [{ figure: 'runway', op: 'lt', value: 9 }, 'figure'],
        [{ figure: 'runway_months', op: 'below', value: 9 }, 'op'],
        [{ figure: 'runway_months', op: 'lt', value: 'nine' }, 'value'],
        [{ figure: 'runway_months', op: 'lt', value: true }, 'value'],
        [{ figure: 'stale', op: 'eq', value: 1 }, 'value'],
        [{ figure: 'stale', op: 'gt', value: true }, 'op'],
        [{ figure: 'runway_months', op: 'lt', value: 9, fund_id: 'nope' }, 'fund_id'],
        [
          { figure: 'runway_months', op: 'lt', value: 9, company_ids: [fx.companies.zeta.id] },
          'company_ids[0]',
        ],
        [{ figure: 'runway_months', op: 'lt' }, 'value'],
      ];
      for (const [body, field] of cases) {
        const res = await rest('/v1/alert-rules/', fx.admin.rest, 'POST', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.include(field);
      }
      const patched = await rest(`/v1/alert-rules/${runwayRule}/`, fx.admin.rest, 'PATCH', { op: 'within' });
      expect(patched.status).to.equal(400);
      expect(patched.body.errors[0].field).to.equal('op');
      expect((await rest('/v1/alert-rules/', fx.admin.rest)).body.count).to.equal(before);
      expect((await rest(`/v1/alert-rules/${runwayRule}/`, fx.admin.rest)).body.op).to.equal('lt');
    });

    it('an alert clears when its condition no longer holds, with alert.cleared', async () => {
      await setCash(fx.companies.acme.id, '1200000.00');
      expect(await pass('changes')).to.include({ triggered: 0, cleared: 1 });
      expect((await listAlerts()).map((a) => a.company_name)).to.deep.equal(['Gamma Grid']);
      const cleared = await alertEvents('alert.cleared');
      expect(cleared).to.have.length(1);
      expect(cleared[0]).to.include({
        company_id: fx.companies.acme.id,
        rule_id: runwayRule,
        value: '12.00',
      });
      const closed = await t.db('alerts').where({ company_id: fx.companies.acme.id }).first();
      expect(closed).to.include({ status: 'closed', cleared_at: clock.now().toISOString() });
      // Back under the threshold: a new alert, a second alert.triggered for the company.
      await setCash(fx.companies.acme.id, '300000.00');
      expect(await pass('changes')).to.include({ triggered: 1, cleared: 0 });
      const acme = (await alertEvents('alert.triggered')).filter(
        (e) => e.company_id === fx.companies.acme.id,
      );
      expect(acme).to.have.length(2);
    });

    it('the daily pass and the change-driven pass agree on the open alerts', async () => {
      const snapshot = async () =>
        (await fx.repos.alerts.openAlerts(fx.firmA.id))
          .map((a) => `${a.rule_id}:${a.company_id}:${a.current_value}`)
          .sort();
      const growth = await rest('/v1/alert-rules/', fx.admin.rest, 'POST', {
        figure: 'cash_in_bank',
        op: 'gte',
        value: 1000000,
        fund_id: fx.fundA,
      });
      expect(growth.status).to.equal(201);
      // Several changes, each with its event: Gamma's runway to 12, Beta's cash below a million.
      await setCash(fx.companies.gamma.id, '1200000.00');
      await setCash(fx.companies.beta.id, '900000.00');
      await setCash(fx.companies.acme.id, '1500000.00');
      await pass('changes');
      const byChanges = await snapshot();
      expect(byChanges).to.have.length(2);
      expect(await pass('all')).to.include({ daily: true, triggered: 0, cleared: 0 });
      expect(await snapshot()).to.deep.equal(byChanges);
    });

    it('a change without an event is caught by the daily pass', async () => {
      await t.db('metric_data').where('id', cash.get(fx.companies.gamma.id)!).update({ value: '100000.00' });
      expect(await pass('changes')).to.include({ triggered: 0 });
      expect(await pass('all')).to.include({ triggered: 1 });
    });

    it('stale data and late information reports fire on the daily pass', async () => {
      const stale = await rest('/v1/alert-rules/', fx.editor.rest, 'POST', {
        figure: 'stale',
        op: 'eq',
        value: true,
      });
      expect(stale.status, JSON.stringify(stale.body)).to.equal(201);
      const late = await rest('/v1/alert-rules/', fx.editor.rest, 'POST', {
        figure: 'late_information_report',
        op: 'gt',
        value: 0,
        company_ids: [fx.companies.beta.id, fx.companies.gamma.id],
      });
      expect(late.status, JSON.stringify(late.body)).to.equal(201);
      const request = newId();
      await t.db('information_requests').insert({
        id: request,
        firm_id: fx.firmA.id,
        name: 'Q4 update',
        due_date: '2026-01-10',
        period_start_date: '2025-10-01',
        period_end_date: '2025-12-31',
        period: '2025-Q4',
        status: 'open',
        created_at: '2025-12-01T00:00:00.000Z',
      });
      for (const [company, submitted] of [
        [fx.companies.beta.id, null],
        [fx.companies.gamma.id, '2026-01-08T00:00:00.000Z'],
      ] as const)
        await t.db('information_reports').insert({
          id: newId(),
          firm_id: fx.firmA.id,
          company_id: company,
          information_request_id: request,
          submitted_at: submitted,
          status: submitted ? 'submitted' : 'pending',
          created_at: '2025-12-01T00:00:00.000Z',
        });
      await pass('all');
      // Nothing is due yet, and every company has December data.
      expect(await listAlerts(fx.admin.rest, `?rule_id=${late.body.id}`)).to.deep.equal([]);
      expect(await listAlerts(fx.admin.rest, `?rule_id=${stale.body.id}`)).to.deep.equal([]);

      // In May, Beta's report is 122 days late, and Acme and Gamma report April while Beta does not.
      clock.set(new Date('2026-05-12T12:00:00.000Z'));
      for (const company of [fx.companies.acme.id, fx.companies.gamma.id])
        await insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: company,
          category: 'net_burn',
          value: '100000.00',
          date: '2026-04-30',
        });
      await pass('all');
      const lateAlerts = await listAlerts(fx.admin.rest, `?rule_id=${late.body.id}`);
      expect(lateAlerts.map((a) => [a.company_id, a.value])).to.deep.equal([[fx.companies.beta.id, '122']]);
      const staleAlerts = await listAlerts(fx.admin.rest, `?rule_id=${stale.body.id}`);
      expect(staleAlerts.map((a) => [a.company_id, a.value])).to.deep.equal([[fx.companies.beta.id, 'true']]);
    });

    it('/metrics reports the open alerts per rule', async () => {
      const res = await fetch(`${server.url}/metrics`, {
        headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const text = await res.text();
      const perRule = new Map<string, number>();
      for (const a of await fx.repos.alerts.openAlerts(fx.firmA.id))
        perRule.set(a.rule_id, (perRule.get(a.rule_id) ?? 0) + 1);
      expect(perRule.size).to.be.greaterThan(0);
      for (const [rule, count] of perRule) expect(text).to.include(`alerts_open{rule_id="${rule}"} ${count}`);
    });

    it('two evaluators over one database never fire an alert twice', async () => {
      // PostgreSQL: a second pool, as another node would have; SQLite has one writer, so one handle.
      const second = t.dialect === 'postgres' ? openDb(t.url) : t.db;
      try {
        const other: EvaluatorDeps = { ...deps, repos: createRepos(second) };
        const created = await rest('/v1/alert-rules/', fx.admin.rest, 'POST', {
          figure: 'late_information_report',
          op: 'gte',
          value: 0,
        });
        const companies = 3;
        const results = await Promise.all([
          evaluateFirm(deps, fx.firmA.id, 'changes'),
          evaluateFirm(other, fx.firmA.id, 'changes'),
          evaluateFirm(deps, fx.firmA.id, 'all'),
          evaluateFirm(other, fx.firmA.id, 'all'),
        ]);
        expect(results.reduce((n, r) => n + r.triggered, 0)).to.equal(companies);
        const fired = (await alertEvents('alert.triggered')).filter((e) => e.rule_id === created.body.id);
        expect(fired).to.have.length(companies);
        expect(await listAlerts(fx.admin.rest, `?rule_id=${created.body.id}`)).to.have.length(companies);
      } finally {
        if (second !== t.db) await second.destroy();
      }
    });

    it('deleting a rule removes its alerts', async () => {
      const res = await rest(`/v1/alert-rules/${runwayRule}/`, fx.editor.rest, 'DELETE');
      expect(res.status).to.equal(200);
      expect(await listAlerts(fx.admin.rest, `?rule_id=${runwayRule}`)).to.deep.equal([]);
      expect((await rest(`/v1/alert-rules/${runwayRule}/`, fx.admin.rest)).status).to.equal(404);
    });

    it('the server evaluates rules on its own when ALERTS is on', async () => {
      const rule = await rest('/v1/alert-rules/', fx.admin.rest, 'POST', {
        figure: 'late_information_report',
        op: 'gte',
        value: 0,
      });
      expect(rule.status).to.equal(201);
      const node = await startTestServer(t.db, {
        clock,
        env: { ALERTS: 'on', ALERTS_INTERVAL_SECONDS: '0.05' },
      });
      try {
        const deadline = Date.now() + 10000;
        let open: Listed[] = [];
        while (Date.now() < deadline && open.length === 0) {
          await new Promise((r) => setTimeout(r, 50));
          open = await listAlerts(fx.admin.rest, `?rule_id=${rule.body.id}`);
        }
        expect(open.length).to.be.greaterThan(0);
      } finally {
        await node.close();
      }
    });
  });
}
