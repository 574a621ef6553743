import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import type { User } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertCustomCategory, insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { signInFlow, WebClient } from './helpers/oauth.ts';
import { assertReference, toJsonSchema } from './helpers/reference.ts';
import { api, EVERY_TOOLSET, startTestServer, TestClock } from './helpers/server.ts';

const NOW = '2026-06-01T12:00:00.000Z';

/** The reference's own schema of one response, for operations whose schemas are written inline. */
function referenceResponse(path: string, method: string, status: string): ValidateFunction {
  const file = fileURLToPath(new URL('./reference/main-openapi.json', import.meta.url));
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const schema = doc.paths[path][method].responses[status].content['application/json'].schema;
  return new Ajv({ strict: false, allErrors: true }).compile(toJsonSchema(schema) as object);
}

function assertValid(validate: ValidateFunction, value: unknown): void {
  if (!validate(value)) throw new Error(`${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

const fields = (body: { errors: { field: string }[] }) => body.errors.map((e) => e.field);

for (const dialect of dialects) {
  describe(`metric writes (POST and DELETE /v1/metrics/) and metric read conformance (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let clock: TestClock;
    let limitedEditor: string;
    let selectMetric: string;
    let budgetId: string;
    const created = referenceResponse('/metrics/', 'post', '201');
    const deletedShape = referenceResponse('/metrics/{datum_id}/', 'delete', '200');

    const post = (body: unknown, query = '', token = fx.editor.rest, headers: Record<string, string> = {}) =>
      api(server.url, `/v1/metrics/${query}`, { token, method: 'POST', body, headers });
    const del = (id: string, token = fx.editor.rest) =>
      api(server.url, `/v1/metrics/${id}/`, { token, method: 'DELETE' });
    const list = (query: string, token = fx.editor.rest) =>
      api(server.url, `/v1/metrics/?company_id=${fx.companies.acme.id}&${query}`, { token });

    const point = (extra: Record<string, unknown> = {}) => ({
      company_id: fx.companies.acme.id,
      category: 'revenue',
      metric_cadence: 'month',
      date: '2025-01-31',
      value: '1000',
      currency: 'USD',
      ...extra,
    });

    async function count(table: string, where: Record<string, unknown> = {}): Promise<number> {
      const row = (await t.db(table).where(where).count({ n: '*' }).first()) as { n: number | string };
      return Number(row.n);
    }

    async function addUser(extra: Partial<User>, companyIds: string[] = []): Promise<string> {
      const user: User = {
        id: newId(),
        firm_id: fx.firmA.id,
        email: `${newId().toLowerCase()}@alpha.test`,
        first_name: 'Limited',
        last_name: 'Editor',
        password_hash: 'x',
        role: 'editor',
        all_companies: true,
        can_view_documents: true,
        can_edit_cap_table: false,
        is_active: true,
        created_at: NOW,
        ...extra,
      };
      await fx.repos.users.create(user, companyIds);
      return issueToken(fx.repos, user);
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      clock = new TestClock(new Date(NOW));
      server = await startTestServer(t.db, { clock });
      limitedEditor = await addUser({ all_companies: false }, [fx.companies.beta.id]);
      selectMetric = await insertCustomCategory(t.db, fx.firmA.id, 'Health', 'select', {
        choices: ['green', 'amber', 'red'],
      });
      await insertCustomCategory(t.db, fx.firmA.id, 'Customers', 'number', { pointInTime: true });
      budgetId = newId();
      await t.db('budgets').insert({
        id: budgetId,
        firm_id: fx.firmA.id,
        company_id: fx.companies.acme.id,
        name: 'Plan 2025',
        date: '2025-01-01',
        color: '#ffffff',
        description: '',
        created_at: NOW,
      });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    describe('POST /v1/metrics/', () => {
      it('creates standard and custom metric data: 201, one reference item per point in request order', async () => {
        const res = await post([
          point({ date: '2024-01-31', value: '1250.50' }),
          point({
            category: 'headcount',
            metric_cadence: 'point_in_time',
            date: '2024-01-31',
            value: '12',
            currency: undefined,
          }),
          point({ category: 'gross_margin', date: '2024-01-31', value: '0.42', currency: null }),
          point({
            category: 'Health',
            metric_cadence: 'point_in_time',
            date: '2024-01-31',
            value: 'amber',
            currency: undefined,
          }),
          point({
            category: 'customers',
            metric_cadence: 'point_in_time',
            date: '2024-01-31',
            value: '310',
            currency: undefined,
          }),
        ]);
        expect(res.status).to.equal(201);
        assertValid(created, res.body);
        expect(res.body.map((r: { outcome: string }) => r.outcome)).to.deep.equal(Array(5).fill('created'));
        expect(res.body[0]).to.include({
          value: '1250.50',
          category: 'revenue',
          custom_metric: null,
          currency: 'USD',
          metric_cadence: 'month',
          date: '2024-01-31',
          is_budget_metric: false,
          company_id: fx.companies.acme.id,
        });
        expect(res.body[1]).to.not.have.property('currency');
        expect(res.body[3]).to.include({ category: 'custom', custom_metric: 'Health', value: 'amber' });
        expect(res.body[4]).to.include({ category: 'custom', custom_metric: 'Customers' });

        const listed = await list('from=2024-01-31&to=2024-01-31');
        expect(listed.status).to.equal(200);
        const byId = new Map(listed.body.results.map((d: { id: string }) => [d.id, d]));
        for (const item of res.body) expect(byId.has(item.id), item.category).to.equal(true);
        const revenue = byId.get(res.body[0].id) as Record<string, unknown>;
        expect(revenue).to.include({ value: '1250.50', currency: 'USD', cadence: 'month' });
        expect(revenue.created_at).to.equal(NOW);
        assertReference('main', 'Datum', revenue);
        expect((byId.get(res.body[3].id) as { category_id: string }).category_id).to.equal(selectMetric);
      });

      it('records every creation in metric_history with who and when', async () => {
        const res = await post([point({ date: '2024-02-29', value: '77' })]);
        expect(res.status).to.equal(201);
        const rows = await t.db('metric_history').where({ datum_id: res.body[0].id });
        expect(rows).to.have.length(1);
        expect(rows[0]).to.include({
          old_value: null,
          new_value: '77',
          new_currency: 'USD',
          changed_by: fx.editor.user.id,
          changed_at: NOW,
        });
      });

      it('writes budget metrics into the one budget the request names', async () => {
        const res = await post([
          point({ date: '2025-03-31', value: '5000', is_budget_metric: true, budget_id: budgetId }),
          point({ date: '2025-04-30', value: '6000', is_budget_metric: true, budget_id: budgetId }),
        ]);
        expect(res.status).to.equal(201);
        assertValid(created, res.body);
        expect(res.body[0]).to.include({ is_budget_metric: true, budget_id: budgetId });
        const actuals = await list('from=2025-03-31&to=2025-04-30');
        expect(actuals.body.results).to.have.length(0);
        const budget = await list(`budget_id=${budgetId}&from=2025-03-31&to=2025-04-30`);
        expect(budget.body.results.map((d: { value: string }) => d.value)).to.deep.equal(['5000', '6000']);
      });

      it('answers 400 naming every offending field of every item, and writes nothing', async () => {
        const before = await count('metric_data');
        const res = await post([
          point({ date: '2023-01-31' }),
          point({ date: '2023-13-01', value: '12,5' }),
          point({ category: 'revnue', date: '2023-02-28' }),
          point({
            category: 'cash_in_bank',
            metric_cadence: 'month',
            date: '2023-02-28',
            currency: undefined,
          }),
          point({
            category: 'headcount',
            metric_cadence: 'point_in_time',
            date: '2023-02-28',
            currency: 'USD',
          }),
          point({ category: 'Health', metric_cadence: 'point_in_time', value: 'blue', currency: undefined }),
          { company_id: fx.companies.acme.id },
          'not an object',
          point({ date: '2023-01-31', value: '2' }),
          point({ metric_cadence: 'fortnight', date: '2023-03-31' }),
        ]);
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(fields(res.body)).to.have.members([
          'items[1].date',
          'items[1].value',
          'items[2].category',
          'items[3].metric_cadence',
          'items[3].currency',
          'items[4].currency',
          'items[5].value',
          'items[6].value',
          'items[6].category',
          'items[6].metric_cadence',
          'items[6].date',
          'items[7]',
          'items[8].date',
          'items[9].metric_cadence',
        ]);
        const byField = new Map(res.body.errors.map((e: { field: string; message: string }) => [e.field, e]));
        expect((byField.get('items[2].category') as { message: string }).message).to.include('"revenue"');
        expect((byField.get('items[8].date') as { message: string }).message).to.include('items[0]');
        expect(await count('metric_data')).to.equal(before);
      });

      it('refuses an empty list and a body that is not a list', async () => {
        for (const body of [[], { items: [point()] }]) {
          const res = await post(body);
          expect(res.status, JSON.stringify(body)).to.equal(400);
          expect(fields(res.body)).to.deep.equal(['items']);
        }
      });

      it('allows one company and one budget per request', async () => {
        const before = await count('metric_data');
        const res = await post([
          point({ date: '2023-05-31' }),
          point({ date: '2023-06-30', company_id: fx.companies.beta.id }),
          point({ date: '2023-07-31', is_budget_metric: true, budget_id: budgetId }),
        ]);
        expect(res.status).to.equal(400);
        expect(fields(res.body)).to.deep.equal(['items[1].company_id', 'items[2].budget_id']);
        const budgets = await post([
          point({ date: '2023-05-31', is_budget_metric: true }),
          point({ date: '2023-06-30', budget_id: budgetId }),
        ]);
        expect(budgets.status).to.equal(400);
        expect(fields(budgets.body)).to.deep.equal(['items[0].budget_id', 'items[1].budget_id']);
        expect(await count('metric_data')).to.equal(before);
      });

      it("answers 404 for another firm's or an inaccessible company exactly like an unknown one", async () => {
        const answers = [];
        for (const [companyId, token] of [
          ['NoSuchCompany000', fx.editor.rest],
          [fx.companies.zeta.id, fx.editor.rest],
          [fx.companies.acme.id, limitedEditor],
        ] as const) {
          const res = await post([point({ company_id: companyId })], '', token);
          expect(res.status).to.equal(404);
          expect(fields(res.body)).to.deep.equal(['items[0].company_id']);
          answers.push(res.body.errors[0].message.replace(companyId, 'ID'));
        }
        expect(new Set(answers).size).to.equal(1);
        const budgetOfAcme = await post(
          [point({ company_id: fx.companies.beta.id, is_budget_metric: true, budget_id: budgetId })],
          '',
          limitedEditor,
        );
        expect(budgetOfAcme.status).to.equal(400);
        expect(fields(budgetOfAcme.body)).to.deep.equal(['items[0].budget_id']);
        expect(await count('metric_data', { company_id: fx.companies.zeta.id })).to.equal(0);
      });

      it('overwrites a live point of the same category, cadence, date and budget by default, keeping its history', async () => {
        const id = await insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.acme.id,
          category: 'revenue',
          date: '2022-01-31',
          value: '100',
        });
        const res = await post([point({ date: '2022-01-31', value: '150', currency: 'EUR' })]);
        expect(res.status).to.equal(201);
        expect(res.body[0]).to.include({ id, outcome: 'overwritten', value: '150', currency: 'EUR' });
        const row = await t.db('metric_data').where({ id }).first();
        expect(row).to.include({ value: '150', currency: 'EUR', updated_at: NOW });
        const history = await t.db('metric_history').where({ datum_id: id });
        expect(history).to.have.length(1);
        expect(history[0]).to.include({ old_value: '100', new_value: '150', old_currency: 'USD' });
        const again = await post(
          [point({ date: '2022-01-31', value: '150', currency: 'EUR' })],
          '?on_conflict=overwrite',
        );
        expect(again.body[0]).to.include({ id, outcome: 'unchanged' });
        expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(1);
      });

      it('keeps the existing point with on_conflict=skip and creates the others', async () => {
        const id = await insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.acme.id,
          category: 'revenue',
          date: '2022-02-28',
          value: '100',
        });
        const res = await post(
          [point({ date: '2022-02-28', value: '999' }), point({ date: '2022-03-31', value: '5' })],
          '?on_conflict=skip',
        );
        expect(res.status).to.equal(201);
        assertValid(created, res.body);
        expect(res.body[0]).to.include({ id, outcome: 'skipped', value: '100' });
        expect(res.body[1]).to.include({ outcome: 'created', value: '5' });
        expect((await t.db('metric_data').where({ id }).first()).value).to.equal('100');
      });

      it('refuses the whole request with on_conflict=error, naming each conflicting item, and writes nothing', async () => {
        await insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.acme.id,
          category: 'revenue',
          date: '2022-04-30',
          value: '100',
        });
        const before = await count('metric_data');
        const res = await post(
          [point({ date: '2022-05-31' }), point({ date: '2022-04-30', value: '1' })],
          '?on_conflict=error',
        );
        expect(res.status).to.equal(409);
        expect(res.body.code).to.equal('conflict');
        expect(fields(res.body)).to.deep.equal(['items[1]']);
        expect(await count('metric_data')).to.equal(before);
        const bad = await post([point()], '?on_conflict=replace');
        expect(bad.status).to.equal(400);
        expect(fields(bad.body)).to.deep.equal(['on_conflict']);
      });

      it('does not meet deleted data, or data of another budget or cadence', async () => {
        await insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.acme.id,
          category: 'revenue',
          date: '2022-06-30',
          value: '100',
          deletedAt: NOW,
        });
        await insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.acme.id,
          category: 'revenue',
          date: '2022-06-30',
          value: '100',
          budgetId,
        });
        const res = await post(
          [point({ date: '2022-06-30' }), point({ date: '2022-06-30', metric_cadence: 'quarter' })],
          '?on_conflict=error',
        );
        expect(res.status).to.equal(201);
        expect(res.body.map((r: { outcome: string }) => r.outcome)).to.deep.equal(['created', 'created']);
      });

      it('replays an idempotent retry without writing anything new', async () => {
        const headers = { 'Idempotency-Key': `metrics-${newId()}` };
        const first = await post([point({ date: '2021-01-31', value: '1' })], '', fx.editor.rest, headers);
        expect(first.status).to.equal(201);
        const rows = await count('metric_data');
        const history = await count('metric_history');
        const retry = await post([point({ date: '2021-01-31', value: '1' })], '', fx.editor.rest, headers);
        expect(retry.status).to.equal(201);
        expect(retry.body).to.deep.equal(first.body);
        expect(await count('metric_data')).to.equal(rows);
        expect(await count('metric_history')).to.equal(history);
      });

      it('refuses the viewer role with 403 and writes nothing', async () => {
        const before = await count('metric_data');
        const res = await post([point({ date: '2021-02-28' })], '', fx.viewer.rest);
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('permission_denied');
        expect(await count('metric_data')).to.equal(before);
      });

      it('accepts 10,000 points in one request', async function () {
        this.timeout(60_000);
        const items = Array.from({ length: 10_000 }, (_, i) => {
          const d = new Date(Date.UTC(1990, 0, 1 + i));
          return point({
            company_id: fx.companies.gamma.id,
            metric_cadence: 'day',
            date: d.toISOString().slice(0, 10),
            value: String(i),
          });
        });
        const res = await post(items);
        expect(res.status).to.equal(201);
        expect(res.body).to.have.length(10_000);
        expect(res.body[9_999]).to.include({ value: '9999', outcome: 'created' });
        expect(await count('metric_data', { company_id: fx.companies.gamma.id })).to.equal(10_000);
        const overwrite = await post(items.map((p) => ({ ...p, value: `${p.value}.5` })));
        expect(overwrite.status).to.equal(201);
        expect(overwrite.body[0]).to.include({ outcome: 'overwritten', value: '0.5' });
        expect(await count('metric_data', { company_id: fx.companies.gamma.id })).to.equal(10_000);
      });

      it('refuses more than 10,000 points', async function () {
        this.timeout(30_000);
        const items = Array.from({ length: 10_001 }, () => point());
        const res = await post(items);
        expect(res.status).to.equal(400);
        expect(fields(res.body)).to.deep.equal(['items']);
      });
    });

    describe('DELETE /v1/metrics/{datum_id}/', () => {
      const datum = (extra: Partial<Parameters<typeof insertDatum>[1]> = {}) =>
        insertDatum(t.db, {
          firmId: fx.firmA.id,
          companyId: fx.companies.acme.id,
          category: 'revenue',
          date: '2020-01-31',
          value: '10',
          ...extra,
        });

      it('soft-deletes: 200 with the reference body, hidden from listings, back with include_deleted=1', async () => {
        const id = await datum();
        const res = await del(id);
        expect(res.status).to.equal(200);
        assertValid(deletedShape, res.body);
        expect(res.body.success).to.equal(true);
        const hidden = await list('from=2020-01-31&to=2020-01-31');
        expect(hidden.body.results.map((d: { id: string }) => d.id)).to.not.include(id);
        const shown = await list('from=2020-01-31&to=2020-01-31&include_deleted=1');
        const item = shown.body.results.find((d: { id: string }) => d.id === id);
        expect(item.deleted_at).to.equal(NOW);
        assertReference('main', 'Datum', item);
        const history = await t.db('metric_history').where({ datum_id: id });
        expect(history).to.have.length(1);
        expect(history[0]).to.include({ old_value: '10', new_value: null, changed_by: fx.editor.user.id });
      });

      it("answers 404 for an unknown, deleted, another firm's or an inaccessible datum, alike", async () => {
        const deleted = await datum({ deletedAt: NOW });
        const zeta = await datum({ firmId: fx.firmB.id, companyId: fx.companies.zeta.id });
        const acme = await datum();
        const answers = [];
        for (const [id, token] of [
          ['NoSuchDatum00000', fx.editor.rest],
          [deleted, fx.editor.rest],
          [zeta, fx.editor.rest],
          [acme, limitedEditor],
        ] as const) {
          const res = await del(id, token);
          expect(res.status).to.equal(404);
          answers.push(res.body.detail.replace(id, 'ID'));
        }
        expect(new Set(answers).size).to.equal(1);
        expect((await t.db('metric_data').where({ id: zeta }).first()).deleted_at).to.equal(null);
        expect((await t.db('metric_data').where({ id: acme }).first()).deleted_at).to.equal(null);
      });

      it('refuses the viewer role with 403', async () => {
        const id = await datum();
        const res = await del(id, fx.viewer.rest);
        expect(res.status).to.equal(403);
        expect((await t.db('metric_data').where({ id }).first()).deleted_at).to.equal(null);
      });
    });

    describe('metric reads', () => {
      it("lists only data aligned with the company's fiscal calendar unless include_non_fye_aligned is true", async () => {
        const beta = fx.companies.beta.id;
        await t.db('companies').where({ id: beta }).update({ fiscal_year_end: '03-31' });
        const at = (cadence: string, date: string, category = 'revenue') =>
          insertDatum(t.db, { firmId: fx.firmA.id, companyId: beta, category, cadence, date, value: '1' });
        const aligned = [
          await at('quarter', '2025-06-30'),
          await at('year', '2025-03-31'),
          await at('month', '2025-05-31'),
          await at('point_in_time', '2025-05-15', 'cash_in_bank'),
        ];
        const offCalendar = [
          await at('quarter', '2025-05-31'),
          await at('year', '2025-12-31'),
          await at('month', '2025-05-15'),
        ];
        const ids = async (query: string) => {
          const res = await api(server.url, `/v1/metrics/?company_id=${beta}${query}`, {
            token: fx.editor.rest,
          });
          expect(res.status, query).to.equal(200);
          return res.body.results.map((d: { id: string }) => d.id);
        };
        expect(await ids('')).to.have.members(aligned);
        expect(await ids('&include_non_fye_aligned=false')).to.have.members(aligned);
        expect(await ids('&include_non_fye_aligned=true')).to.have.members([...aligned, ...offCalendar]);
        const bad = await api(server.url, `/v1/metrics/?company_id=${beta}&include_non_fye_aligned=maybe`, {
          token: fx.editor.rest,
        });
        expect(bad.status).to.equal(400);
        expect(fields(bad.body)).to.deep.equal(['include_non_fye_aligned']);
      });

      it('filters metric options by type, choices and is_multiple', async () => {
        const channels = await insertCustomCategory(t.db, fx.firmA.id, 'Channels', 'select', {
          choices: ['web', 'retail', 'amber'],
        });
        await t.db('metric_categories').where({ id: channels }).update({ is_multiple: true });
        const names = async (query: string) => {
          const res = await api(server.url, `/v1/metrics/options/?page_size=100${query}`, {
            token: fx.editor.rest,
          });
          expect(res.status, query).to.equal(200);
          return res.body.results.map((o: { category_name: string }) => o.category_name);
        };
        expect(await names('&type=Select')).to.have.members(['Health', 'Channels']);
        expect(await names('&type=Select&is_multiple=true')).to.deep.equal(['Channels']);
        expect(await names('&is_multiple=false&type=select')).to.deep.equal(['Health']);
        expect(await names('&choices=amber')).to.have.members(['Health', 'Channels']);
        expect(await names('&choices=amber,web')).to.deep.equal(['Channels']);
        expect(await names('&choices=amber&choices=red')).to.deep.equal(['Health']);
        const money = await names('&type=Money&is_standard=true');
        expect(money).to.include.members(['revenue', 'cash_in_bank']);
        expect(money).to.not.include('headcount');
        expect(await names('&type=Integer&is_standard=true')).to.include('headcount');
        expect(await names('&type=Decimal&is_standard=true')).to.include.members(['moic', 'runway']);
        const bad = await api(server.url, '/v1/metrics/options/?type=Float', { token: fx.editor.rest });
        expect(bad.status).to.equal(400);
        expect(fields(bad.body)).to.deep.equal(['type']);
      });
    });

    describe('over MCP', () => {
      let writes: RunningServer;
      let client: Client;
      let plain: Client;
      before(async () => {
        writes = await startTestServer(t.db, {
          env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET },
          clock,
        });
        client = await mcpClient(writes.url, fx.editor.pat);
        plain = await mcpClient(server.url, fx.editor.pat);
      });
      after(async () => {
        await client?.close();
        await plain?.close();
        await writes?.close();
      });

      it('lists create_metrics and delete_metric only with MCP_WRITE_TOOLS, annotated as destructive writes', async () => {
        const hidden = (await plain.listTools()).tools.map((x) => x.name);
        expect(hidden).to.not.include.members(['create_metrics']);
        expect(hidden).to.not.include('delete_metric');
        const tools = (await client.listTools()).tools;
        for (const name of ['create_metrics', 'delete_metric']) {
          const tool = tools.find((x) => x.name === name);
          expect(tool?.annotations).to.include({ readOnlyHint: false, destructiveHint: true });
        }
      });

      it('creates and deletes through the tools', async () => {
        const made = (await client.callTool({
          name: 'create_metrics',
          arguments: { items: [point({ date: '2019-01-31', value: '3' })] },
        })) as unknown as { isError?: boolean; structuredContent: { results: { id: string }[] } };
        expect(made.isError).to.not.equal(true);
        const id = made.structuredContent.results[0]!.id;
        const gone = (await client.callTool({
          name: 'delete_metric',
          arguments: { datum_id: id },
        })) as unknown as {
          isError?: boolean;
          structuredContent: { success: boolean };
        };
        expect(gone.structuredContent.success).to.equal(true);
        expect((await t.db('metric_data').where({ id }).first()).deleted_at).to.equal(NOW);
      });

      it('refuses a token signed in without the write scope with 403 insufficient_scope', async () => {
        const readOnly = (await signInFlow(writes.url, new WebClient(writes.url), { scope: 'read' })).tokens
          .access_token;
        for (const [name, args] of [
          ['create_metrics', { items: [point({ date: '2019-02-28' })] }],
          ['delete_metric', { datum_id: 'x' }],
        ] as const) {
          const res = await api(writes.url, '/mcp', {
            token: readOnly,
            method: 'POST',
            headers: { Accept: 'application/json, text/event-stream' },
            body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
          });
          expect(res.status, name).to.equal(403);
          expect(res.headers.get('www-authenticate')).to.include('error="insufficient_scope"');
        }
        expect(await count('metric_data', { date: '2019-02-28' })).to.equal(0);
      });
    });
  });
}
