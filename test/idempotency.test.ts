import { expect } from 'chai';
import type { Request, Response } from 'express';
import { idempotencyTiming, serveIdempotent } from '../rest/idempotency.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import type { ToolContext } from '../tools/context.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const HOUR = 60 * 60 * 1000;

for (const dialect of dialects) {
  describe(`Idempotency-Key on write routes (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let clock: TestClock;
    let keyCounter = 0;
    const newKey = () => `key-${dialect.name}-${++keyCounter}`;

    const datum = () =>
      insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '1000.00',
      });

    const patch = (id: string, body: unknown, key?: string, token = fx.editor.rest) =>
      api(server.url, `/v1/metrics/${id}/`, {
        token,
        method: 'PATCH',
        body,
        headers: key === undefined ? {} : { 'Idempotency-Key': key },
      });

    const comments = async (id: string) =>
      (await t.db('metric_comments').where({ datum_id: id }).orderBy('seq')).map((r) => r.content as string);

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      clock = new TestClock();
      server = await startTestServer(t.db, { clock });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });
    afterEach(() => {
      idempotencyTiming.pollMs = 50;
      idempotencyTiming.waitMs = 10_000;
    });

    it('replays the first response for a retry with the same key and body, and writes nothing', async () => {
      const id = await datum();
      const key = newKey();
      const first = await patch(id, { value: '5', comments: [{ content: 'once' }] }, key);
      expect(first.status).to.equal(200);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      clock.advance(1000);
      const again = await patch(id, { comments: [{ content: 'once' }], value: '5' }, key);
      expect(again.status).to.equal(200);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect(await comments(id)).to.deep.equal(['once']);
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(1);
    });

    it('answers 409 conflict for the same key with another body or another path', async () => {
      const id = await datum();
      const other = await datum();
      const key = newKey();
      expect((await patch(id, { value: '5' }, key)).status).to.equal(200);
      const changed = await patch(id, { value: '6' }, key);
      expect(changed.status).to.equal(409);
      expect(changed.body.code).to.equal('conflict');
      expect(changed.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['Idempotency-Key']);
      const elsewhere = await patch(other, { value: '5' }, key);
      expect(elsewhere.status).to.equal(409);
      expect(elsewhere.body.code).to.equal('conflict');
      const [row] = await t.db('metric_data').where({ id });
      expect(row.value).to.equal('5');
      const [untouched] = await t.db('metric_data').where({ id: other });
      expect(untouched.value).to.equal('1000.00');
    });

    it('keeps keys per principal: another caller with the same key is independent', async () => {
      const id = await datum();
      const key = newKey();
      const body = { comments: [{ content: 'mine' }] };
      const editor = await patch(id, body, key, fx.editor.rest);
      const admin = await patch(id, body, key, fx.admin.rest);
      const editorPat = await patch(id, body, key, fx.editor.pat);
      for (const res of [editor, admin, editorPat]) {
        expect(res.status).to.equal(200);
        expect(res.headers.get('idempotent-replayed')).to.equal(null);
      }
      expect(await comments(id)).to.deep.equal(['mine', 'mine', 'mine']);
    });

    it('creates once when ten requests with one key arrive together', async () => {
      const id = await datum();
      const key = newKey();
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => patch(id, { comments: [{ content: 'together' }] }, key)),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
      expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).to.have.length(9);
      for (const res of responses) expect(res.body).to.deep.equal(responses[0]!.body);
      expect(await comments(id)).to.deep.equal(['together']);
      expect(await t.db('metric_history').where({ datum_id: id })).to.have.length(1);
    });

    it('stores and replays a 4xx answer', async () => {
      const id = await datum();
      const key = newKey();
      const first = await patch(id, { value: 'twelve' }, key);
      expect(first.status).to.equal(400);
      const again = await patch(id, { value: 'twelve' }, key);
      expect(again.status).to.equal(400);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.headers.get('content-type')).to.match(/application\/problem\+json/);
      const { request_id: _a, ...firstProblem } = first.body;
      const { request_id: _b, ...againProblem } = again.body;
      expect(againProblem).to.deep.equal(firstProblem);
      expect(again.body.errors[0].field).to.equal('value');
      const forbidden = await patch(id, { value: '1' }, key, fx.viewer.rest);
      expect(forbidden.status).to.equal(403);
      const retried = await patch(id, { value: '1' }, key, fx.viewer.rest);
      expect(retried.status).to.equal(403);
      expect(retried.headers.get('idempotent-replayed')).to.equal('true');
    });

    it('forgets a key after 24 hours', async () => {
      const id = await datum();
      const key = newKey();
      const body = { comments: [{ content: 'daily' }] };
      expect((await patch(id, body, key)).status).to.equal(200);
      clock.advance(23 * HOUR);
      expect((await patch(id, body, key)).headers.get('idempotent-replayed')).to.equal('true');
      clock.advance(2 * HOUR);
      const later = await patch(id, body, key);
      expect(later.status).to.equal(200);
      expect(later.headers.get('idempotent-replayed')).to.equal(null);
      expect(await comments(id)).to.deep.equal(['daily', 'daily']);
    });

    it('takes over a claim left unanswered by a process that died, once its lease has run out', async () => {
      const id = await datum();
      const key = newKey();
      const body = { comments: [{ content: 'after a crash' }] };
      // What a SIGKILL between claiming the key and answering leaves behind.
      const principal = `app:${(await t.db('access_tokens').where({ user_id: fx.editor.user.id, kind: 'client_credentials' }).first()).application_id}`;
      await t.db('idempotency_keys').insert({
        principal,
        key,
        request_hash: 'left-by-a-dead-process',
        status_code: null,
        response_body: null,
        created_at: new Date(clock.now().getTime() - 60_000).toISOString(),
      });
      idempotencyTiming.waitMs = 200;
      const early = await patch(id, body, key);
      expect(early.status).to.equal(409);
      expect(early.body.code).to.equal('conflict');
      clock.advance(2 * 60_000);
      const taken = await patch(id, body, key);
      expect(taken.status).to.equal(200);
      expect(await comments(id)).to.deep.equal(['after a crash']);
      expect((await patch(id, body, key)).headers.get('idempotent-replayed')).to.equal('true');
    });

    it('applies every request that carries no key', async () => {
      const id = await datum();
      const body = { comments: [{ content: 'again' }] };
      const keys = async () => Number((await t.db('idempotency_keys').count({ n: '*' }).first())?.n);
      const before = await keys();
      expect((await patch(id, body)).status).to.equal(200);
      expect((await patch(id, body)).status).to.equal(200);
      expect(await comments(id)).to.deep.equal(['again', 'again']);
      expect(await keys()).to.equal(before);
    });

    async function appId(): Promise<string> {
      const row = await t
        .db('access_tokens')
        .where({ user_id: fx.editor.user.id, kind: 'client_credentials' })
        .first();
      return row.application_id as string;
    }

    it('rejects a key that is empty, too long or not printable with 400 naming Idempotency-Key', async () => {
      const id = await datum();
      for (const key of ['', 'k'.repeat(256), 'tab\there', 'caf\u00e9']) {
        const res = await api(server.url, `/v1/metrics/${id}/`, {
          token: fx.editor.rest,
          method: 'PATCH',
          body: { value: '9' },
          headers: { 'Idempotency-Key': key },
        });
        expect(res.status, JSON.stringify(key)).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['Idempotency-Key']);
      }
      const [row] = await t.db('metric_data').where({ id });
      expect(row.value).to.equal('1000.00');
      expect((await patch(id, { value: '9' }, 'k'.repeat(255))).status).to.equal(200);
    });

    it('waits for a request that holds the key and replays its answer', async () => {
      const id = await datum();
      const key = newKey();
      const body = { value: '77' };
      // Learn the hash by a first request, then make the row look in progress.
      const first = await patch(id, body, key);
      const principal = `app:${await appId()}`;
      await t
        .db('idempotency_keys')
        .where({ principal, key })
        .update({ status_code: null, response_body: null });
      // Knex builders run only when awaited or then-ed.
      const finish = new Promise((resolve) => setTimeout(resolve, 200)).then(() =>
        t
          .db('idempotency_keys')
          .where({ principal, key })
          .update({ status_code: 200, response_body: JSON.stringify(first.body) }),
      );
      const started = Date.now();
      const waited = await patch(id, body, key);
      await finish;
      expect(Date.now() - started).to.be.greaterThan(150);
      expect(waited.status).to.equal(200);
      expect(waited.headers.get('idempotent-replayed')).to.equal('true');
      expect(waited.body).to.deep.equal(first.body);
    });

    it('answers 409 when the request holding the key never finishes', async () => {
      idempotencyTiming.waitMs = 300;
      const id = await datum();
      const key = newKey();
      const body = { value: '78' };
      await patch(id, body, key);
      const principal = `app:${await appId()}`;
      await t
        .db('idempotency_keys')
        .where({ principal, key })
        .update({ status_code: null, response_body: null });
      const res = await patch(id, body, key);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('conflict');
      expect(res.body.detail).to.match(/still in progress/);
    });

    it('frees the key when the first request fails unexpectedly, so a retry runs', async () => {
      const ctx = {
        principal: { key: 'user:unit' },
        repos: fx.repos,
        clock,
        logger: createLogger('silent'),
        requestId: 'r1',
        publicUrl: server.url,
      } as unknown as ToolContext;
      const req = {
        method: 'PATCH',
        path: '/v1/metrics/x/',
        query: {},
        body: { value: '1' },
        get: (name: string) => (name.toLowerCase() === 'idempotency-key' ? 'unit-key' : undefined),
      } as unknown as Request;
      const sent: { status?: number; body?: unknown } = {};
      const res = {
        setHeader() {},
        status(s: number) {
          sent.status = s;
          return this;
        },
        json(b: unknown) {
          sent.body = b;
          return this;
        },
      } as unknown as Response;
      let error: unknown;
      try {
        await serveIdempotent(ctx, req, res, async () => {
          throw new Error('database went away');
        });
      } catch (err) {
        error = err;
      }
      expect((error as Error).message).to.equal('database went away');
      expect(await t.db('idempotency_keys').where({ principal: 'user:unit' })).to.have.length(0);
      await serveIdempotent(ctx, req, res, async () => ({ status: 503, body: { busy: true } }));
      expect(await t.db('idempotency_keys').where({ principal: 'user:unit' })).to.have.length(0);
      await serveIdempotent(ctx, req, res, async () => ({ status: 200, body: { ok: true } }));
      expect(sent).to.deep.equal({ status: 200, body: { ok: true } });
      const [row] = await t.db('idempotency_keys').where({ principal: 'user:unit' });
      expect(Number(row.status_code)).to.equal(200);
    });

    it('leaves reads alone: a GET with a key stores nothing', async () => {
      const before = await t.db('idempotency_keys').count({ n: '*' }).first();
      const res = await api(server.url, '/v1/companies/', {
        token: fx.editor.rest,
        headers: { 'Idempotency-Key': newKey() },
      });
      expect(res.status).to.equal(200);
      const after = await t.db('idempotency_keys').count({ n: '*' }).first();
      expect(Number(after?.n)).to.equal(Number(before?.n));
    });
  });
}
