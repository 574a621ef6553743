import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { startTestServer } from './helpers/server.ts';

describe('the front door GET /', () => {
  let t: TestDb;
  let server: RunningServer;

  before(async () => {
    t = await sqliteTestDb();
    server = await startTestServer(t.db);
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  it('gives a browser a page that says what the service is and links to the reference, sign-in, AI clients and health', async () => {
    const res = await fetch(`${server.url}/`, {
      headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    expect(html).to.include('<title>Portfolio Data Service</title>');
    expect(html).to.include(`${server.url}/mcp`);
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    for (const path of ['/docs', '/openapi.json', '/login', '/docs/connecting', '/healthz', '/readyz'])
      expect(links).to.include(path);
    // Every page the person may open from here answers.
    for (const path of ['/docs', '/openapi.json', '/login', '/docs/connecting', '/healthz', '/readyz'])
      expect((await fetch(`${server.url}${path}`)).status, path).to.equal(200);
  });

  it('serves the guide to connecting an AI client as readable text', async () => {
    const res = await fetch(`${server.url}/docs/connecting`);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; charset=utf-8/);
    expect(await res.text()).to.match(/^# Connecting AI clients/);
  });

  for (const accept of ['application/json', '*/*']) {
    it(`gives a client asking for ${accept} a JSON index of the entry points`, async () => {
      const res = await fetch(`${server.url}/`, { headers: { Accept: accept } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('vary')).to.match(/Accept/);
      const body = (await res.json()) as { service: string; links: Record<string, string> };
      expect(body.service).to.equal('portfolio-data-service');
      expect(body.links).to.include({
        api_reference: `${server.url}/docs`,
        openapi: `${server.url}/openapi.json`,
        mcp: `${server.url}/mcp`,
        sign_in: `${server.url}/login`,
        health: `${server.url}/healthz`,
        ready: `${server.url}/readyz`,
      });
    });
  }
});
