import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { expect } from 'chai';
import { openApiDocument } from '../rest/openapi.ts';
import { routes } from '../rest/routes.ts';
import { openApiText } from '../scripts/artefacts.ts';
import type { RunningServer } from '../server/http.ts';
import { sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((formatsModule as unknown as { default?: typeof formatsModule }).default ??
  formatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

const validators = new WeakMap<Document, Ajv2020>();

/** A validator for the schema one operation states for one status and media type. */
function responseValidator(doc: Document, path: string, method: string, status: number, type: string) {
  let ajv = validators.get(doc);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    validators.set(doc, ajv);
  }
  const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.[type]?.schema;
  expect(schema, `${method} ${path} ${status} ${type}`).to.be.an('object');
  // The document's $refs point into its own components.
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
  return ajv.compile(JSON.parse(text));
}

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

  it('declares every path parameter, a header for idempotency on writes and no body on DELETE', () => {
    const doc = openApiDocument(routes, 'http://127.0.0.1:8000') as unknown as Document;
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]![route.method.toLowerCase()]!;
      const params = op.parameters ?? [];
      for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
        expect(params.find((p) => p.name === name && p.in === 'path')?.required, `${path} ${name}`).to.equal(
          true,
        );
      }
      const idempotency = params.some((p) => p.name === 'Idempotency-Key' && p.in === 'header');
      expect(idempotency, `${route.method} ${path}`).to.equal(route.method !== 'GET');
      if (route.method === 'GET' || route.method === 'DELETE') expect(op.requestBody).to.equal(undefined);
      else expect(op.requestBody, `${route.method} ${path}`).to.be.an('object');
      if (route.envelope === 'page') {
        expect(params.map((p) => p.name)).to.include('format');
        expect(op.responses['200']?.content).to.have.property('text/csv');
      }
      for (const status of ['400', '401', '403', '404', '429'])
        expect(op.responses[status]?.content).to.have.property('application/problem+json');
    }
    // Every schema of the document compiles as JSON Schema 2020-12, the dialect of OpenAPI 3.1.
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          for (const type of Object.keys(response.content ?? {}))
            expect(() => responseValidator(doc, path, method, Number(status), type)).not.to.throw();
        }
      }
    }
  });

  it('answers with bodies that match the schemas the document states for them', async () => {
    const res = await api(server.url, '/openapi.json');
    const doc = res.body as Document;
    const id = fx.companies.acme.id;
    const cases: [method: string, template: string, url: string, status: number, body?: unknown][] = [
      ['get', '/v1/companies/', '/v1/companies/?page_size=2', 200],
      ['get', '/v1/companies/{company_id}/', `/v1/companies/${id}/`, 200],
      ['get', '/v1/companies/{company_id}/', '/v1/companies/nope/', 404],
      ['get', '/v1/companies/', '/v1/companies/?page=abc', 400],
      ['get', '/v1/whoami/', '/v1/whoami/', 200],
      ['get', '/v1/firm-details/', '/v1/firm-details/', 200],
      ['get', '/v1/users/', '/v1/users/', 200],
      ['get', '/v1/funds/', '/v1/funds/', 200],
      ['get', '/v1/documents/', `/v1/documents/?company_id=${id}`, 200],
      ['get', '/v1/portfolio/overview/', '/v1/portfolio/overview/', 200],
      ['post', '/beta/investment/financing-events/get/', '/beta/investment/financing-events/get/', 200, {}],
    ];
    for (const [method, template, url, status, body] of cases) {
      const answer = await api(server.url, url, { token: fx.admin.rest, method: method.toUpperCase(), body });
      expect(answer.status, `${method} ${url}: ${JSON.stringify(answer.body)}`).to.equal(status);
      const type = status < 400 ? 'application/json' : 'application/problem+json';
      const validate = responseValidator(doc, template, method, status, type);
      expect(validate(answer.body), `${method} ${url}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
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
