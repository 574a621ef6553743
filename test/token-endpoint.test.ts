import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, createApp, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

async function requestToken(
  base: string,
  authorization: string | undefined,
  body = 'grant_type=client_credentials',
) {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (authorization) headers.Authorization = authorization;
  const res = await fetch(`${base}/o/token/`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

for (const dialect of dialects) {
  describe(`POST /o/token/ (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let app: { id: string; clientId: string; clientSecret: string };
    const clock = new TestClock();

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      app = await createApp(fx.repos, fx.admin.user, 'integration');
      server = await startTestServer(t.db, { clock });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('issues a bearer token for valid client credentials, exactly as the spec shapes it', async () => {
      const res = await requestToken(server.url, basic(app.clientId, app.clientSecret));
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(Object.keys(res.body).sort()).to.deep.equal([
        'access_token',
        'expires_in',
        'scope',
        'token_type',
      ]);
      expect(res.body.expires_in).to.equal(3600);
      expect(res.body.token_type).to.equal('Bearer');
      expect(res.body.scope).to.equal('read write');
      expect(res.body.access_token).to.have.length.greaterThan(43);

      const companies = await api(server.url, '/v1/companies/', { token: res.body.access_token });
      expect(companies.status).to.equal(200);
      expect(companies.body.count).to.equal(3);
    });

    it('stores only the hash of the token', async () => {
      const res = await requestToken(server.url, basic(app.clientId, app.clientSecret));
      const rows = await t.db('access_tokens').where({ application_id: app.id });
      expect(rows.length).to.be.greaterThan(0);
      for (const row of rows) expect(row.token_hash).to.not.equal(res.body.access_token);
      expect(JSON.stringify(rows)).to.not.contain(res.body.access_token);
    });

    it('answers a wrong secret with invalid_client and 401', async () => {
      const res = await requestToken(server.url, basic(app.clientId, 'wrong'));
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal('invalid_client');
      expect(res.body.error_description).to.be.a('string');
    });

    it('answers an unknown client and missing credentials with invalid_client', async () => {
      expect((await requestToken(server.url, basic('nobody', 'x'))).body.error).to.equal('invalid_client');
      expect((await requestToken(server.url, undefined)).body.error).to.equal('invalid_client');
    });

    it('answers Basic credentials that are not valid form encoding with invalid_client, at both endpoints', async () => {
      const malformed = `Basic ${Buffer.from('%zz:secret').toString('base64')}`;
      expect((await requestToken(server.url, malformed)).body.error).to.equal('invalid_client');
      const revoke = await fetch(`${server.url}/o/revoke_token/`, {
        method: 'POST',
        headers: { Authorization: malformed, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'token=x',
      });
      expect(revoke.status).to.equal(401);
      expect(((await revoke.json()) as { error: string }).error).to.equal('invalid_client');
    });

    it('answers another grant type with unsupported_grant_type', async () => {
      const res = await requestToken(
        server.url,
        basic(app.clientId, app.clientSecret),
        'grant_type=password',
      );
      expect(res.status).to.equal(400);
      expect(res.body.error).to.be.oneOf(['unsupported_grant_type', 'unauthorized_client']);
    });

    it('answers a missing grant type with invalid_request', async () => {
      const res = await requestToken(server.url, basic(app.clientId, app.clientSecret), '');
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('invalid_request');
    });

    it('expires tokens after 3600 seconds', async () => {
      const res = await requestToken(server.url, basic(app.clientId, app.clientSecret));
      clock.advance(3599 * 1000);
      expect((await api(server.url, '/v1/companies/', { token: res.body.access_token })).status).to.equal(
        200,
      );
      clock.advance(2000);
      const expired = await api(server.url, '/v1/companies/', { token: res.body.access_token });
      expect(expired.status).to.equal(401);
      expect(expired.headers.get('www-authenticate')).to.match(/invalid_token/);
    });

    it('acts with the permissions of the user who created the application', async () => {
      const restrictedApp = await createApp(fx.repos, fx.restricted.user);
      const res = await requestToken(server.url, basic(restrictedApp.clientId, restrictedApp.clientSecret));
      const companies = await api(server.url, '/v1/companies/', { token: res.body.access_token });
      expect(companies.body.results.map((c: { name: string }) => c.name)).to.deep.equal(['Acme Analytics']);
    });

    it('refuses a revoked application and ends its tokens', async () => {
      const doomed = await createApp(fx.repos, fx.admin.user);
      const res = await requestToken(server.url, basic(doomed.clientId, doomed.clientSecret));
      await fx.repos.applications.revoke(doomed.id, clock.now().toISOString());
      expect((await api(server.url, '/v1/companies/', { token: res.body.access_token })).status).to.equal(
        401,
      );
      expect((await requestToken(server.url, basic(doomed.clientId, doomed.clientSecret))).status).to.equal(
        401,
      );
    });
  });
}
