import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { User } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertCustomCategory, insertDatum, insertFxRate } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, EVERY_TOOLSET, startTestServer, TestClock } from './helpers/server.ts';

const NOW = '2026-06-01T12:00:00.000Z';

for (const dialect of dialects) {
  describe(`update_metric: PATCH /v1/metrics/{datum_id}/ (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let clock: TestClock;
    /** An editor limited to Acme, and an editor without a name. */
    let limitedEditor: string;
    let namelessEditor: string;
    let selectMetric: string;
    let textMetric: string;

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

    const datum = (seed: Partial<Parameters<typeof insertDatum>[1]> = {}) =>
      insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '1000.00',
        ...seed,
      });

    const patch = (id: string, body: unknown, token = fx.editor.rest) =>
      api(server.url, `/v1/metrics/${id}/`, { token, method: 'PATCH', body });

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      clock = new TestClock(new Date(NOW));
      server = await startTestServer(t.db, { clock });
      limitedEditor = await addUser({ all_companies: false }, [fx.companies.acme.id]);
      namelessEditor = await addUser({ first_name: '', last_name: '', email: 'nameless@alpha.test' });
      selectMetric = await insertCustomCategory(t.db, fx.firmA.id, 'Health', 'select', {
        choices: ['green', 'amber', 'red'],
      });
      textMetric = await insertCustomCategory(t.db, fx.firmA.id, 'Board notes', 'text');
      await insertFxRate(t.db, fx.firmA.id, 'EUR', 'USD', '2025-12-01', '1.1');
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('changes the value and answers 200 with id, value, currency and comments', async () => {
      const id = await datum();
      const res = await patch(id, { value: '1250.50' });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        id,
        value: '1250.50',
        currency: 'USD',
        comments: [],
        comments_total: 0,
      });
    });

    it('serves the new value, currency and updated_at on GET /v1/metrics/ next', async () => {
      const id = await datum({ date: '2026-02-28' });
      clock.advance(60_000);
      const res = await patch(id, { value: '2000', currency: 'EUR' });
      expect(res.status).to.equal(200);
      const list = await api(
        server.url,
        `/v1/metrics/?company_id=${fx.companies.acme.id}&from=2026-02-28&to=2026-02-28`,
        { token: fx.editor.rest },
      );
      expect(list.status).to.equal(200);
      const item = list.body.results.find((d: { id: string }) => d.id === id);
      expect(item.value).to.equal('2000');
      expect(item.currency).to.equal('EUR');
      expect(item.fx_rate).to.equal(1.1);
      expect(item.converted_value).to.equal('2200');
      expect(item.updated_at).to.equal(clock.now().toISOString());
      expect(item.created_at).to.equal('2026-01-01T00:00:00.000Z');
      assertReference('main', 'Datum', item);
    });

    it('appends comments oldest first, stamped with the caller name and the time', async () => {
      const id = await datum();
      const first = await patch(id, { comments: [{ content: 'first' }, { content: 'second' }] });
      expect(first.status).to.equal(200);
      const firstAt = clock.now().toISOString();
      expect(first.body.comments).to.deep.equal([
        { content: 'first', updated_by: 'editor Tester', updated_at: firstAt },
        { content: 'second', updated_by: 'editor Tester', updated_at: firstAt },
      ]);
      clock.advance(1000);
      const second = await patch(id, { comments: [{ content: 'third' }] }, fx.admin.rest);
      expect(second.status).to.equal(200);
      expect(second.body.value).to.equal('1000.00');
      expect(second.body.comments).to.deep.equal([
        ...first.body.comments,
        { content: 'third', updated_by: 'admin Tester', updated_at: clock.now().toISOString() },
      ]);
    });

    it('stamps comments with the e-mail address of a caller without a name', async () => {
      const id = await datum();
      const res = await patch(id, { comments: [{ content: 'hi' }] }, namelessEditor);
      expect(res.status).to.equal(200);
      expect(res.body.comments[0].updated_by).to.equal('nameless@alpha.test');
    });

    it('keeps every change in metric_history', async () => {
      const id = await datum();
      await patch(id, { value: '1500', currency: 'GBP', comments: [{ content: 'why' }] });
      await patch(id, { comments: [{ content: 'a' }, { content: 'b' }] }, fx.admin.rest);
      const rows = await t.db('metric_history').where({ datum_id: id }).orderBy('comments_added');
      expect(
        rows.map((r) => ({
          old_value: r.old_value,
          new_value: r.new_value,
          old_currency: r.old_currency,
          new_currency: r.new_currency,
          comments_added: Number(r.comments_added),
          changed_by: r.changed_by,
          changed_at: r.changed_at,
        })),
      ).to.deep.equal([
        {
          old_value: '1000.00',
          new_value: '1500',
          old_currency: 'USD',
          new_currency: 'GBP',
          comments_added: 1,
          changed_by: fx.editor.user.id,
          changed_at: clock.now().toISOString(),
        },
        {
          old_value: '1500',
          new_value: '1500',
          old_currency: 'GBP',
          new_currency: 'GBP',
          comments_added: 2,
          changed_by: fx.admin.user.id,
          changed_at: clock.now().toISOString(),
        },
      ]);
    });

    it('answers 400 missing_parameter naming value, currency and comments when none is given', async () => {
      const id = await datum();
      for (const body of [{}, { id: 'x', converted_value: '1', unknown: true }]) {
        const res = await patch(id, body);
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('missing_parameter');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([
          'value',
          'currency',
          'comments',
        ]);
      }
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(0);
    });

    it('ignores read-only and unknown fields, and the path id wins over one in the body', async () => {
      const id = await datum();
      const other = await datum();
      const res = await patch(id, {
        id: other,
        datum_id: other,
        value: '7',
        converted_value: '99',
        company_id: fx.companies.beta.id,
        archived: true,
        color: 'blue',
      });
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(id);
      const [row] = await t.db('metric_data').where({ id });
      expect(row.value).to.equal('7');
      expect(row.company_id).to.equal(fx.companies.acme.id);
      expect(Boolean(row.archived)).to.equal(false);
      const [untouched] = await t.db('metric_data').where({ id: other });
      expect(untouched.value).to.equal('1000.00');
    });

    it('rejects a value that is not a decimal number for a numeric category, naming value', async () => {
      const id = await datum();
      for (const value of ['12k', '1e5', ' 12', '1,000', '', 'x'.repeat(256)]) {
        const res = await patch(id, { value });
        expect(res.status, value).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['value']);
      }
      const number = await patch(id, { value: 12 });
      expect(number.status).to.equal(400);
      expect(number.body.errors[0].field).to.equal('value');
      const [row] = await t.db('metric_data').where({ id });
      expect(row.value).to.equal('1000.00');
    });

    it('accepts negative and fractional decimals, and fractions for percentages', async () => {
      const burn = await datum({ category: 'net_burn' });
      expect((await patch(burn, { value: '-1234.5678' })).status).to.equal(200);
      const margin = await datum({ category: 'gross_margin', currency: null });
      const res = await patch(margin, { value: '0.25' });
      expect(res.status).to.equal(200);
      expect(res.body.currency).to.equal(null);
    });

    it('takes any text for a text custom metric and only a listed choice for a select one', async () => {
      const text = await datum({ category: textMetric, value: 'old', currency: null });
      const ok = await patch(text, { value: 'Raised a bridge; see memo' });
      expect(ok.status).to.equal(200);
      expect(ok.body.value).to.equal('Raised a bridge; see memo');

      const select = await datum({ category: selectMetric, value: 'green', currency: null });
      expect((await patch(select, { value: 'amber' })).status).to.equal(200);
      const bad = await patch(select, { value: 'purple' });
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('invalid_parameter');
      expect(bad.body.errors[0].field).to.equal('value');
      expect(bad.body.detail).to.match(/green/);
    });

    it('rejects a currency outside CurrencyCode, naming currency', async () => {
      const id = await datum();
      for (const currency of ['XXX', 'usd', '', 1]) {
        const res = await patch(id, { currency });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['currency']);
      }
    });

    it('rejects empty, oversized and malformed comments, naming the field', async () => {
      const id = await datum();
      const cases: [unknown, string][] = [
        [[], 'comments'],
        [Array.from({ length: 21 }, () => ({ content: 'x' })), 'comments'],
        [[{ content: '' }], 'comments[0].content'],
        [[{ content: 'ok' }, { content: 'x'.repeat(5001) }], 'comments[1].content'],
        [[{ text: 'no content' }], 'comments[0].content'],
        ['just text', 'comments'],
      ];
      for (const [comments, field] of cases) {
        const res = await patch(id, { comments });
        expect(res.status, field).to.equal(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([field]);
      }
      const max = await patch(id, {
        comments: Array.from({ length: 20 }, (_, i) => ({ content: i === 0 ? 'x'.repeat(5000) : `c${i}` })),
      });
      expect(max.status).to.equal(200);
      expect(max.body.comments).to.have.length(20);
    });

    it('refuses viewers with 403 permission_denied', async () => {
      const id = await datum();
      const res = await patch(id, { value: '1' }, fx.viewer.rest);
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('permission_denied');
      const [row] = await t.db('metric_data').where({ id });
      expect(row.value).to.equal('1000.00');
    });

    it('answers 404 for unknown, deleted, other-firm and inaccessible data alike', async () => {
      const deleted = await datum({ deletedAt: '2026-03-01T00:00:00.000Z' });
      const foreign = await insertDatum(t.db, {
        firmId: fx.firmB.id,
        companyId: fx.companies.zeta.id,
        category: 'revenue',
        value: '5',
        currency: 'EUR',
      });
      const beta = await datum({ companyId: fx.companies.beta.id });
      const cases: [string, string][] = [
        ['unknown', fx.editor.rest],
        [deleted, fx.editor.rest],
        [foreign, fx.editor.rest],
        [beta, limitedEditor],
      ];
      for (const [id, token] of cases) {
        const res = await patch(id, { value: '1' }, token);
        expect(res.status, id).to.equal(404);
        expect(res.body.code).to.equal('not_found');
        expect(res.body.detail).to.match(/GET \/v1\/metrics\//);
      }
      const [row] = await t.db('metric_data').where({ id: foreign });
      expect(row.value).to.equal('5');
      expect((await patch(beta, { value: '2' }, fx.editor.rest)).status).to.equal(200);
    });

    it('updates an archived datum, which stays archived', async () => {
      const id = await datum({ archived: true });
      const res = await patch(id, { value: '3' });
      expect(res.status).to.equal(200);
      const [row] = await t.db('metric_data').where({ id });
      expect(row.value).to.equal('3');
      expect(Boolean(row.archived)).to.equal(true);
    });

    it('keeps the comments of concurrent updates of one datum', async () => {
      const id = await datum();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          patch(
            id,
            { comments: [{ content: `c${i}a` }, { content: `c${i}b` }] },
            i % 2 ? fx.admin.rest : fx.editor.rest,
          ),
        ),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
      const rows = await t.db('metric_comments').where({ datum_id: id }).orderBy('seq');
      expect(rows).to.have.length(20);
      expect(rows.map((r) => Number(r.seq))).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      // Each request's two comments are adjacent: positions were taken under the datum lock.
      for (let i = 0; i < 20; i += 2) {
        expect(rows[i + 1].content).to.equal(rows[i].content.replace(/a$/, 'b'));
      }
      const longest = responses.reduce((a, b) => (a.body.comments.length > b.body.comments.length ? a : b));
      expect(longest.body.comments).to.have.length(20);
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(10);
    });

    describe('over MCP', () => {
      let writes: RunningServer;
      let withWrites: Client;
      let readsOnly: Client;

      before(async () => {
        writes = await startTestServer(t.db, {
          clock,
          env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET },
        });
        withWrites = await mcpClient(writes.url, fx.editor.pat);
        readsOnly = await mcpClient(server.url, fx.editor.pat);
      });
      after(async () => {
        await withWrites?.close();
        await readsOnly?.close();
        await writes?.close();
      });

      it('is listed, as destructive, only when MCP_WRITE_TOOLS is on', async () => {
        const off = await readsOnly.listTools();
        expect(off.tools.map((tool) => tool.name)).not.to.include('update_metric');
        const on = await withWrites.listTools();
        const tool = on.tools.find((x) => x.name === 'update_metric');
        expect(tool?.annotations).to.include({
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
        });
      });

      it('changes a datum from the same handler as REST', async () => {
        const id = await datum();
        const res = await withWrites.callTool({
          name: 'update_metric',
          arguments: { datum_id: id, value: '42', comments: [{ content: 'via mcp' }] },
        });
        expect(res.isError).to.not.equal(true);
        expect(res.structuredContent).to.deep.equal({
          id,
          value: '42',
          currency: 'USD',
          comments: [
            { content: 'via mcp', updated_by: 'editor Tester', updated_at: clock.now().toISOString() },
          ],
          comments_total: 1,
        });
        const missing = await withWrites.callTool({
          name: 'update_metric',
          arguments: { datum_id: 'nope', value: '1' },
        });
        expect(missing.isError).to.equal(true);
        expect((missing.content as { text: string }[])[0]!.text).to.match(/get_company_metrics/);
      });

      it('always returns the comment it just wrote, with the latest ones and the total, uncut over MCP', async () => {
        const id = await datum();
        // 60 long comments: all of them would not fit in one answer.
        for (let i = 0; i < 3; i++) {
          const batch = Array.from({ length: 20 }, (_, j) => ({
            content: `${i * 20 + j} ${'x'.repeat(3000)}`,
          }));
          expect((await patch(id, { comments: batch })).status).to.equal(200);
        }
        const res = (await withWrites.callTool({
          name: 'update_metric',
          arguments: { datum_id: id, comments: [{ content: 'the newest' }] },
        })) as unknown as {
          isError?: boolean;
          structuredContent: { comments: { content: string }[]; comments_total: number };
        };
        expect(res.isError).to.not.equal(true);
        const out = res.structuredContent;
        expect(out.comments_total).to.equal(61);
        expect(out.comments).to.have.length(20);
        expect(out.comments.at(-1)!.content).to.equal('the newest');
        expect(out).to.not.have.property('truncated');
      });
    });
  });
}
