import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { routes } from '../rest/routes.ts';
import { openApiText } from '../scripts/artefacts.ts';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

describe('OpenAPI document, API reference page and CSV', () => {
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db);
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  it('commits the document the route table generates (run npm run generate after changing routes)', () => {
    expect(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8')).to.equal(openApiText());
  });

  it('serves an OpenAPI 3.1 document with every route and the public URL as server', async () => {
    const res = await api(server.url, '/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.servers[0].url).to.equal(server.url);
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      expect(res.body.paths[path], path).to.have.property(route.method.toLowerCase());
    }
    expect(res.body.paths['/o/token/']).to.have.property('post');
  });

  it('serves the reference page and its assets without any other host', async () => {
    const page = await fetch(`${server.url}/docs`);
    const html = await page.text();
    expect(page.status).to.equal(200);
    expect(html).to.not.match(/https?:\/\/(?!127\.0\.0\.1)/);
    for (const asset of [
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/init.js',
    ]) {
      expect((await fetch(server.url + asset)).status, asset).to.equal(200);
    }
  });

  it('answers a list as CSV for format=csv and for Accept: text/csv', async () => {
    const res = await fetch(`${server.url}/v1/companies/?format=csv`, {
      headers: { Authorization: `Bearer ${fx.admin.rest}` },
    });
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines).to.have.length(4);
    expect(lines[0]!.split(',').slice(0, 3)).to.deep.equal(['id', 'name', 'slug']);
    expect(lines[1]).to.contain('Acme Analytics');
    const byAccept = await fetch(`${server.url}/v1/companies/`, {
      headers: { Authorization: `Bearer ${fx.admin.rest}`, Accept: 'text/csv' },
    });
    expect(byAccept.headers.get('content-type')).to.match(/^text\/csv/);
    const bad = await api(server.url, '/v1/companies/?format=xml', { token: fx.admin.rest });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].field).to.equal('format');
  });
});
