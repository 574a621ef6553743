import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { webhookUrlRefusal } from '../core/webhook-url.ts';
import { inTransaction } from '../db/repos/index.ts';
import type { RunningServer } from '../server/http.ts';
import { postWebhook } from '../webhooks/post.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, makeUser } from './helpers/fixture.ts';
import { csrfOf, WebClient } from './helpers/oauth.ts';
import { waitFor } from './helpers/processes.ts';
import { api, startTestServer } from './helpers/server.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

type Mode = 'ok' | 'fail' | 'hold' | 'redirect' | 'flood';

/** A real HTTP receiver on loopback that records every request and answers as its mode says. */
async function receiver() {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  let mode: Mode = 'ok';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (mode === 'ok') res.writeHead(204).end();
      else if (mode === 'fail') res.writeHead(503).end('down for maintenance');
      else if (mode === 'redirect') res.writeHead(302, { Location: `${url}elsewhere` }).end();
      else if (mode === 'hold') held.push(res);
      else {
        // An answer with no end: only a reader that cuts it returns before the timeout.
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {
            // fill the buffer
          }
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    port,
    received,
    setMode(m: Mode) {
      mode = m;
    },
    ids: () => received.map((r) => r.headers['webhook-id'] as string),
    close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

const FAST = {
  WEBHOOK_DELIVERY: 'on',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_POLL_INTERVAL_SECONDS: '0.05',
  WEBHOOK_RETRY_BASE_SECONDS: '0.005',
  WEBHOOK_TIMEOUT_SECONDS: '2',
  WEBHOOK_LEASE_SECONDS: '3',
  WEBHOOK_MAX_ATTEMPTS: '4',
};

/** Appends `n` events of firm A to the outbox in one transaction, as a write would; their ids. */
async function appendEvents(
  fx: Fixture,
  n: number,
  options: { type?: string; companyId?: string | null } = {},
): Promise<string[]> {
  const companyId = options.companyId === undefined ? fx.companies.acme.id : options.companyId;
  return inTransaction(fx.repos, (trx) =>
    trx.events.append(
      ...Array.from({ length: n }, (_, i) => ({
        firmId: fx.firmA.id,
        type: options.type ?? 'company.updated',
        companyId,
        actorType: 'user' as const,
        actorId: fx.admin.user.id,
        occurredAt: new Date().toISOString(),
        resourceType: 'company',
        resourceId: companyId,
        data: { i, name: 'Acme' },
      })),
    ),
  );
}

for (const dialect of dialects) {
  describe(`webhooks (${dialect.name})`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let rx: Receiver;
    const admin = () => fx.admin.rest;

    async function createEndpoint(body: Record<string, unknown> = {}) {
      const res = await api(server.url, '/v1/webhooks/', {
        token: admin(),
        method: 'POST',
        body: { url: rx.url, ...body },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body as { id: string; secret: string };
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, { env: { ...FAST, METRICS_TOKEN: 'metrics-token-for-tests' } });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });
    beforeEach(async () => {
      rx = await receiver();
    });
    afterEach(async () => {
      // Endpoints of one test must not receive the next test's events.
      const list = await api(server.url, '/v1/webhooks/', { token: admin() });
      for (const e of list.body.results ?? [])
        await api(server.url, `/v1/webhooks/${e.id}/`, { token: admin(), method: 'DELETE' });
      await rx.close();
    });

    it('creates an endpoint whose whsec_ secret is shown once, and lets only admins manage endpoints', async () => {
      const created = await createEndpoint({ description: 'CRM sync' });
      expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(created.secret.slice(6), 'base64').length).to.equal(32);
      const got = await api(server.url, `/v1/webhooks/${created.id}/`, { token: admin() });
      expect(got.body).to.include({ url: rx.url, enabled: true, description: 'CRM sync' });
      expect(got.body.event_types).to.deep.equal(['*']);
      expect(got.body).to.not.have.property('secret');
      const listed = await api(server.url, '/v1/webhooks/', { token: admin() });
      expect(JSON.stringify(listed.body)).to.not.include(created.secret);
      for (const user of [fx.editor, fx.viewer]) {
        const res = await api(server.url, '/v1/webhooks/', { token: user.rest });
        expect(res.status).to.equal(403);
      }
      const other = await api(server.url, `/v1/webhooks/${created.id}/`, { token: fx.other.rest });
      expect(other.status).to.equal(404);
    });

    it('refuses a bad url, event type or company naming the field, and stores nothing', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ url: 'not a url' }, 'url'],
        [{ url: 'http://example.com/hook' }, 'url'],
        [{ url: 'https://10.0.0.1/hook' }, 'url'],
        [{ url: 'https://169.254.169.254/latest' }, 'url'],
        [{ url: 'https://[::ffff:192.168.1.1]/hook' }, 'url'],
        [{ url: `${rx.url}<img src=x onerror=alert(1)>` }, 'url'],
        [{ url: `${rx.url}a b` }, 'url'],
        [{ url: `${rx.url}"quoted"` }, 'url'],
        [{ url: `${rx.url}\\back` }, 'url'],
        [{ url: rx.url, event_types: ['company.updated', 'company.exploded'] }, 'event_types[1]'],
        [{ url: rx.url, event_types: [] }, 'event_types'],
        [{ url: rx.url, company_ids: [fx.companies.zeta.id] }, 'company_ids[0]'],
      ];
      for (const [body, field] of cases) {
        const res = await api(server.url, '/v1/webhooks/', { token: admin(), method: 'POST', body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.include(field);
      }
      const list = await api(server.url, '/v1/webhooks/', { token: admin() });
      expect(list.body.results).to.deep.equal([]);
    });

    it('lets an admin limited to some companies neither manage endpoints, even one of their companies, nor see them', async () => {
      const limited = await makeUser(
        fx.repos,
        fx.firmA.id,
        'limited-admin@alpha.test',
        'admin',
        { all_companies: false },
        [fx.companies.acme.id],
      );
      const firmWide = await createEndpoint();
      const acmeOnly = await createEndpoint({ company_ids: [fx.companies.acme.id] });
      const [event] = await appendEvents(fx, 1);
      const delivery = await waitFor('a delivery', async () => {
        const res = await api(server.url, `/v1/webhooks/${firmWide.id}/deliveries/`, { token: admin() });
        return res.body.results.find((d: { event_id: string }) => d.event_id === event);
      });
      const calls: [string, string, Record<string, unknown>?][] = [
        ['GET', '/v1/webhooks/'],
        ['POST', '/v1/webhooks/', { url: rx.url, company_ids: [fx.companies.acme.id] }],
      ];
      for (const { id } of [firmWide, acmeOnly])
        calls.push(
          ['GET', `/v1/webhooks/${id}/`],
          ['PATCH', `/v1/webhooks/${id}/`, { enabled: false }],
          ['POST', `/v1/webhooks/${id}/rotate-secret/`],
          ['POST', `/v1/webhooks/${id}/test/`],
          ['GET', `/v1/webhooks/${id}/deliveries/`],
          ['DELETE', `/v1/webhooks/${id}/`],
        );
      calls.push(['POST', `/v1/webhooks/${firmWide.id}/deliveries/${delivery.id}/replay/`]);
      for (const [method, path, body] of calls) {
        const res = await api(server.url, path, { token: limited.rest, method, body });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.detail).to.equal('managing webhooks needs access to all companies of the firm');
      }
      const list = await api(server.url, '/v1/webhooks/', { token: admin() });
      expect(
        list.body.results.map((e: { id: string; enabled: boolean }) => [e.id, e.enabled]),
      ).to.have.deep.members([
        [firmWide.id, true],
        [acmeOnly.id, true],
      ]);
      const web = new WebClient(server.url);
      await web.signIn('limited-admin@alpha.test');
      const page = await web.get('/account/developer');
      expect(page.text).to.not.include('webhooks-heading');
      const refused = await web.post('/account/developer/webhooks', {
        csrf_token: csrfOf(page.text),
        url: rx.url,
      });
      expect(refused.status).to.equal(404);
      expect((await api(server.url, '/v1/webhooks/', { token: admin() })).body.results).to.have.length(2);
    });

    it('delivers each outbox event signed per Standard Webhooks, with the event id as webhook-id', async () => {
      const { secret } = await createEndpoint();
      const ids = await appendEvents(fx, 3);
      await waitFor('three deliveries', () => (rx.received.length >= 3 ? true : undefined), 10_000);
      const verifier = new Webhook(secret);
      expect(rx.ids().sort()).to.deep.equal([...ids].sort());
      for (const r of rx.received) {
        const payload = verifier.verify(r.body, r.headers as Record<string, string>) as {
          type: string;
          timestamp: string;
          data: Record<string, unknown>;
        };
        expect(payload.type).to.equal('company.updated');
        expect(payload.data).to.include({ id: r.headers['webhook-id'], company_id: fx.companies.acme.id });
        expect(payload.data.actor).to.deep.equal({ type: 'user', id: fx.admin.user.id });
        expect(payload.data.data).to.have.property('name', 'Acme');
      }
      // A tampered body does not verify.
      const first = rx.received[0]!;
      expect(() => verifier.verify(`${first.body} `, first.headers as Record<string, string>)).to.throw();
    });

    it('sends only the event types and companies an endpoint asked for', async () => {
      await createEndpoint({ event_types: ['note.created'], company_ids: [fx.companies.beta.id] });
      await appendEvents(fx, 1, { type: 'note.created', companyId: fx.companies.acme.id });
      await appendEvents(fx, 1, { type: 'company.updated', companyId: fx.companies.beta.id });
      await appendEvents(fx, 1, { type: 'note.created', companyId: null });
      const [wanted] = await appendEvents(fx, 1, { type: 'note.created', companyId: fx.companies.beta.id });
      await waitFor('the matching event', () => (rx.received.length >= 1 ? true : undefined), 10_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.ids()).to.deep.equal([wanted]);
    });

    it('delivers every event once the receiver comes back, retrying with the same webhook-id', async () => {
      const created = await createEndpoint();
      rx.setMode('fail');
      const ids = await appendEvents(fx, 5);
      await waitFor('failed attempts', () => (rx.received.length >= 10 ? true : undefined), 10_000);
      rx.setMode('ok');
      await waitFor(
        'every event after recovery',
        async () => {
          const res = await api(server.url, `/v1/webhooks/${created.id}/deliveries/`, { token: admin() });
          return res.body.results.length === 5 &&
            res.body.results.every((d: { status: string }) => d.status === 'delivered')
            ? res.body.results
            : undefined;
        },
        15_000,
      );
      expect([...new Set(rx.ids())].sort()).to.deep.equal([...ids].sort());
      const deliveries = (await api(server.url, `/v1/webhooks/${created.id}/deliveries/`, { token: admin() }))
        .body.results;
      for (const d of deliveries) {
        expect(d.attempts).to.be.greaterThan(1);
        expect(d.last_status_code).to.equal(204);
        expect(d.last_duration_ms).to.be.a('number');
      }
      const got = await api(server.url, `/v1/webhooks/${created.id}/`, { token: admin() });
      expect(got.body).to.include({ enabled: true, consecutive_failures: 0 });
    });

    it('disables an endpoint whose deliveries keep failing, says why, and enables it again on request', async () => {
      const created = await createEndpoint();
      rx.setMode('fail');
      await appendEvents(fx, 1);
      const disabled = await waitFor(
        'the endpoint disabled',
        async () => {
          const res = await api(server.url, `/v1/webhooks/${created.id}/`, { token: admin() });
          return res.body.enabled === false ? res.body : undefined;
        },
        15_000,
      );
      expect(disabled.disabled_reason).to.match(/4 failed attempts/);
      expect(disabled.disabled_reason).to.include('answered 503');
      expect(rx.received.length).to.equal(4);
      const deliveries = await api(server.url, `/v1/webhooks/${created.id}/deliveries/`, { token: admin() });
      expect(deliveries.body.results[0]).to.include({ status: 'failed', attempts: 4, last_status_code: 503 });
      // While disabled nothing is sent; the metrics count it.
      await appendEvents(fx, 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.received.length).to.equal(4);
      const metrics = await fetch(`${server.url}/metrics`, {
        headers: { Authorization: 'Bearer metrics-token-for-tests' },
      }).then((r) => r.text());
      expect(metrics).to.match(/^webhook_endpoints_disabled 1$/m);
      expect(metrics).to.match(/^webhook_deliveries_total\{outcome="failed"\} [1-9]/m);
      expect(metrics).to.match(/^webhook_outbox_lag_seconds /m);
      // Enabled again: the event of the disabled time is sent.
      rx.setMode('ok');
      const enabled = await api(server.url, `/v1/webhooks/${created.id}/`, {
        token: admin(),
        method: 'PATCH',
        body: { enabled: true },
      });
      expect(enabled.body).to.include({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
      await waitFor('the held-back event', () => (rx.received.length >= 5 ? true : undefined), 10_000);
    });

    it('sends a test event, replays a delivery with the same webhook-id, and signs with both secrets after a rotation', async () => {
      const created = await createEndpoint({ event_types: ['company.created'] });
      const test = await api(server.url, `/v1/webhooks/${created.id}/test/`, {
        token: admin(),
        method: 'POST',
      });
      expect(test.status).to.equal(202);
      await waitFor('the test event', () => (rx.received.length >= 1 ? true : undefined), 10_000);
      const first = rx.received[0]!;
      expect(JSON.parse(first.body).type).to.equal('webhook.test');
      new Webhook(created.secret).verify(first.body, first.headers as Record<string, string>);

      const rotated = await api(server.url, `/v1/webhooks/${created.id}/rotate-secret/`, {
        token: admin(),
        method: 'POST',
      });
      expect(rotated.body.secret)
        .to.match(/^whsec_/)
        .and.not.equal(created.secret);
      expect(rotated.body.previous_secret_valid_until).to.be.a('string');
      const replay = await api(server.url, `/v1/webhooks/${created.id}/deliveries/${test.body.id}/replay/`, {
        token: admin(),
        method: 'POST',
      });
      expect(replay.status).to.equal(202);
      expect(replay.body).to.include({ event_id: test.body.event_id, replay_of: test.body.id });
      await waitFor('the replay', () => (rx.received.length >= 2 ? true : undefined), 10_000);
      const again = rx.received[1]!;
      expect(again.headers['webhook-id']).to.equal(first.headers['webhook-id']);
      expect(again.body).to.equal(first.body);
      expect((again.headers['webhook-signature'] as string).split(' ')).to.have.length(2);
      for (const secret of [created.secret, rotated.body.secret])
        new Webhook(secret).verify(again.body, again.headers as Record<string, string>);
    });
    it('the Developer settings page adds an endpoint, shows its secret once, and lists deliveries and why one is disabled', async () => {
      const web = new WebClient(server.url);
      await web.signIn('admin@alpha.test');
      const page = await web.get('/account/developer');
      expect(page.text).to.include('No webhook endpoints.');
      const refused = await web.post('/account/developer/webhooks', {
        csrf_token: csrfOf(page.text),
        url: 'https://10.1.2.3/',
      });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('not a public address');
      const created = await web.post('/account/developer/webhooks', {
        csrf_token: csrfOf(page.text),
        url: rx.url,
        description: 'Warehouse',
      });
      expect(created.status).to.equal(201);
      const secret = /id="new-webhook-secret" type="text" readonly value="([^"]+)"/.exec(created.text)![1]!;
      rx.setMode('fail');
      await appendEvents(fx, 1);
      await waitFor(
        'the endpoint disabled',
        async () => {
          const list = await api(server.url, '/v1/webhooks/', { token: admin() });
          return list.body.results[0]?.enabled === false ? true : undefined;
        },
        15_000,
      );
      const again = await web.get('/account/developer');
      expect(again.text).to.include('Warehouse').and.include('disabled').and.include('4 failed attempts');
      expect(again.text).to.include('company.updated: failed after 4 attempt(s) · HTTP 503');
      expect(again.text).to.not.include(secret);
      new Webhook(secret).verify(rx.received[0]!.body, rx.received[0]!.headers as Record<string, string>);
      const viewer = new WebClient(server.url);
      await viewer.signIn('viewer@alpha.test');
      expect((await viewer.get('/account/developer')).text).to.not.include('webhooks-heading');
    });
  });

  describe(`webhook URLs naming hosts, at registration (${dialect.name})`, function () {
    this.timeout(30_000);
    let t: TestDb;
    let fx: Fixture;
    let strict: RunningServer;
    let lenient: RunningServer;
    const post = (server: RunningServer, body: Record<string, unknown>) =>
      api(server.url, '/v1/webhooks/', { token: fx.admin.rest, method: 'POST', body });

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      strict = await startTestServer(t.db);
      lenient = await startTestServer(t.db, { env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    });
    after(async () => {
      await strict?.close();
      await lenient?.close();
      await t?.drop();
    });

    it('refuses localhost and a name that does not resolve on create, update and the settings page, naming url', async () => {
      for (const url of [
        'https://localhost/hook',
        'https://api.localhost:8443/hook',
        'https://hooks.invalid/',
      ]) {
        const res = await post(strict, { url });
        expect(res.status, url).to.equal(400);
        expect(res.body.errors, url).to.deep.equal([{ field: 'url', message: res.body.errors[0].message }]);
        expect(res.body.errors[0].message, url).to.match(/not a public address|does not resolve/);
      }
      const created = await post(strict, { url: 'https://93.184.215.14/hook' });
      expect(created.status).to.equal(201);
      const changed = await api(strict.url, `/v1/webhooks/${created.body.id}/`, {
        token: fx.admin.rest,
        method: 'PATCH',
        body: { url: 'https://localhost/hook' },
      });
      expect(changed.status).to.equal(400);
      expect(changed.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['url']);
      const kept = await api(strict.url, `/v1/webhooks/${created.body.id}/`, { token: fx.admin.rest });
      expect(kept.body.url).to.equal('https://93.184.215.14/hook');
      const web = new WebClient(strict.url);
      await web.signIn('admin@alpha.test');
      const page = await web.get('/account/developer');
      const refused = await web.post('/account/developer/webhooks', {
        csrf_token: csrfOf(page.text),
        url: 'https://localhost/hook',
      });
      expect(refused.status).to.equal(400);
      expect(refused.text).to.include('localhost is not a public address');
      const listed = await api(strict.url, '/v1/webhooks/', { token: fx.admin.rest });
      expect(listed.body.results.map((e: { url: string }) => e.url)).to.deep.equal([
        'https://93.184.215.14/hook',
      ]);
    });

    it('takes localhost with WEBHOOK_ALLOW_PRIVATE_URLS, still not a name that does not resolve', async () => {
      const local = await post(lenient, { url: 'http://localhost:9/hook' });
      expect(local.status, JSON.stringify(local.body)).to.equal(201);
      const nowhere = await post(lenient, { url: 'https://hooks.invalid/' });
      expect(nowhere.status).to.equal(400);
      expect(nowhere.body.errors[0]).to.deep.equal({
        field: 'url',
        message: 'names hooks.invalid, which does not resolve',
      });
    });
  });

  describe(`webhook delivery across nodes (${dialect.name})`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let fx: Fixture;
    let rx: Receiver;
    const nodes: ChildServer[] = [];
    const env = { ...FAST, WEBHOOK_TIMEOUT_SECONDS: '2', WEBHOOK_LEASE_SECONDS: '3' };

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    beforeEach(async () => {
      rx = await receiver();
    });
    afterEach(async () => {
      for (const node of nodes.splice(0)) await node.kill();
      await fx.repos.db('webhook_endpoints').delete();
      await rx.close();
    });
    after(async () => {
      await t?.drop();
    });

    async function endpoint(node: ChildServer) {
      const res = await api(node.url, '/v1/webhooks/', {
        token: fx.admin.rest,
        method: 'POST',
        body: { url: rx.url },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body as { id: string; secret: string };
    }

    if (dialect.name === 'postgres') {
      it('two nodes deliver from one outbox: every event arrives, none twice', async () => {
        nodes.push(await spawnServer(t.url, env), await spawnServer(t.url, env));
        await endpoint(nodes[0]!);
        const ids: string[] = [];
        for (let i = 0; i < 8; i++) ids.push(...(await appendEvents(fx, 10)));
        await waitFor('all 80 events', () => (rx.received.length >= 80 ? true : undefined), 30_000);
        await new Promise((r) => setTimeout(r, 500));
        expect(rx.ids().sort()).to.deep.equal([...ids].sort());
      });
    }

    it('a delivery under way on a node that is killed is sent again by another node, with the same webhook-id', async () => {
      const a = await spawnServer(t.url, env);
      nodes.push(a);
      const { secret } = await endpoint(a);
      rx.setMode('hold');
      const [id] = await appendEvents(fx, 1);
      await waitFor('the held request', () => (rx.received.length >= 1 ? true : undefined), 10_000);
      await a.kill();
      rx.setMode('ok');
      const b = await spawnServer(t.url, env);
      nodes.push(b);
      await waitFor('the redelivery', () => (rx.received.length >= 2 ? true : undefined), 20_000);
      expect(rx.ids()).to.deep.equal([id, id]);
      new Webhook(secret).verify(rx.received[1]!.body, rx.received[1]!.headers as Record<string, string>);
      const row = await waitFor('the delivery recorded', async () => {
        const r = await fx.repos.db('webhook_deliveries').first('status', 'attempts');
        return r?.status === 'delivered' ? r : undefined;
      });
      expect(row).to.include({ status: 'delivered', attempts: 2 });
    });
  });
}

describe('webhook requests and SSRF', function () {
  this.timeout(20_000);
  const options = { allowPrivate: false, timeoutMs: 3000, maxResponseBytes: 64 * 1024 };
  let rx: Receiver;
  beforeEach(async () => {
    rx = await receiver();
  });
  afterEach(() => rx.close());

  it('refuses a host name that resolves to loopback without the allow flag, before connecting', async () => {
    const result = await postWebhook(`https://localhost:${rx.port}/`, {}, '{}', options);
    expect(result.error).to.match(/not a public address/);
    const viaResolver = await postWebhook(`https://hooks.example.com:${rx.port}/`, {}, '{}', {
      ...options,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(viaResolver.error).to.match(/resolves to 127\.0\.0\.1, which is not a public address/);
    expect(rx.received).to.have.length(0);
  });

  it('refuses at registration a name resolving to a loopback, private or link-local address, or to none', async () => {
    const to =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const url = 'https://hooks.example.com/';
    for (const addresses of [
      ['127.0.0.1'],
      ['::1'],
      ['10.0.0.7'],
      ['192.168.1.20'],
      ['fd00::7'],
      ['169.254.169.254'],
      ['fe80::1'],
      ['93.184.215.14', '10.0.0.7'],
    ]) {
      const refusal = await webhookUrlRefusal(url, false, to(...addresses));
      expect(refusal, addresses.join(' ')).to.match(
        /^names hooks\.example\.com, which resolves to .*, not a public address/,
      );
    }
    expect(await webhookUrlRefusal(url, false, to())).to.equal(
      'names hooks.example.com, which does not resolve',
    );
    const failing = async () => {
      throw Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    };
    expect(await webhookUrlRefusal(url, false, failing)).to.equal(
      'names hooks.example.com, which does not resolve (ESERVFAIL)',
    );
    expect(
      await webhookUrlRefusal(url, false, to('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c')),
    ).to.equal(undefined);
    // Loopback is for development (WEBHOOK_ALLOW_PRIVATE_URLS); other private addresses never are.
    expect(await webhookUrlRefusal(url, true, to('127.0.0.1'))).to.equal(undefined);
    expect(await webhookUrlRefusal(url, true, to('10.0.0.7'))).to.match(/resolves to 10\.0\.0\.7/);
    // localhost is loopback by definition: refused without asking DNS.
    expect(await webhookUrlRefusal('https://localhost/', false, failing)).to.match(
      /^localhost is not a public/,
    );
  });

  it('refuses private address literals and plain http without the allow flag', async () => {
    for (const url of ['https://192.168.0.10/', 'https://[fe80::1]/', rx.url]) {
      const result = await postWebhook(url, {}, '{}', options);
      expect(result.error, url).to.match(/^url /);
    }
    expect(rx.received).to.have.length(0);
  });

  it('does not follow a redirect', async () => {
    rx.setMode('redirect');
    const result = await postWebhook(rx.url, {}, '{}', { ...options, allowPrivate: true });
    expect(result.statusCode).to.equal(302);
    expect(result.error).to.match(/redirect \(302\), which is not followed/);
    expect(rx.received).to.have.length(1);
  });

  it('cuts an endless answer after the size cap instead of reading it', async () => {
    rx.setMode('flood');
    const result = await postWebhook(rx.url, {}, '{}', { ...options, allowPrivate: true });
    expect(result.statusCode).to.equal(200);
    expect(result.error).to.equal(null);
    expect(result.durationMs).to.be.lessThan(options.timeoutMs);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    rx.setMode('hold');
    const result = await postWebhook(rx.url, {}, '{}', { ...options, allowPrivate: true, timeoutMs: 300 });
    expect(result.statusCode).to.equal(null);
    expect(result.error).to.match(/no answer within 0.3 s/);
  });
});
