import { expect } from 'chai';
import { createRepos } from '../db/repos/index.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

for (const dialect of dialects) {
  describe(`webhook management is recorded like every write (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    const call = (method: string, path: string, body?: unknown) =>
      api(server.url, path, { token: fx.admin.rest, method, body });
    const changes = async (entityId: string) =>
      (
        await t.db('change_log').where({ firm_id: fx.firmA.id, entity_id: entityId }).orderBy('changed_at')
      ).map((r: { entity: string; action: string; changed_by: string | null }) => [
        r.entity,
        r.action,
        r.changed_by,
      ]);

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, { env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('creates, changes, rotates and deletes an endpoint with a change-log row and an event each, neither naming the url or secret', async () => {
      const seqBefore = (await createRepos(t.db).events.list(fx.firmA.id, { limit: 100_000 })).length;
      const created = await call('POST', '/v1/webhooks/', { url: 'http://127.0.0.1:9/hook?key=private-key' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      expect((await call('PATCH', `/v1/webhooks/${id}/`, { enabled: false })).status).to.equal(200);
      expect((await call('POST', `/v1/webhooks/${id}/rotate-secret/`)).status).to.equal(200);
      expect((await call('DELETE', `/v1/webhooks/${id}/`)).status).to.be.oneOf([200, 204]);

      const events = (await createRepos(t.db).events.list(fx.firmA.id, { limit: 100_000 })).slice(seqBefore);
      expect(events.map((e) => e.type)).to.deep.equal([
        'webhook.created',
        'webhook.updated',
        'webhook.secret_rotated',
        'webhook.deleted',
      ]);
      expect(events.map((e) => e.resource_id)).to.deep.equal([id, id, id, id]);
      expect(events.map((e) => e.company_id)).to.deep.equal([null, null, null, null]);
      expect(events[1]!.data).to.include({ enabled: false });
      expect(JSON.stringify(events)).to.not.include('private-key').and.not.include('whsec_');
      const admin = fx.admin.user.id;
      expect(await changes(id)).to.deep.equal([
        ['webhook_endpoints', 'create', admin],
        ['webhook_endpoints', 'update', admin],
        ['webhook_endpoints', 'update', admin],
        ['webhook_endpoints', 'delete', admin],
      ]);
    });

    it('logs a test delivery without announcing it, and never delivers the endpoints own changes', async () => {
      const created = await call('POST', '/v1/webhooks/', { url: 'http://127.0.0.1:9/hook' });
      const test = await call('POST', `/v1/webhooks/${created.body.id}/test/`);
      expect(test.status).to.equal(202);
      expect(await changes(test.body.id)).to.deep.equal([['webhook_deliveries', 'create', fx.admin.user.id]]);
      const repos = createRepos(t.db);
      while ((await repos.webhooks.fanOut(created.body.id, new Date().toISOString())) > 0);
      const deliveries = await call('GET', `/v1/webhooks/${created.body.id}/deliveries/`);
      expect(deliveries.body.results.map((d: { event_type: string }) => d.event_type)).to.deep.equal([
        'webhook.test',
      ]);
    });
  });
}
