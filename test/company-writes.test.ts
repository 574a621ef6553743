import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import formatsModule from 'ajv-formats';
import { expect } from 'chai';
import type { User } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { signInFlow, WebClient } from './helpers/oauth.ts';
import { assertReference, toJsonSchema } from './helpers/reference.ts';
import { api, EVERY_TOOLSET, startTestServer, TestClock } from './helpers/server.ts';

const NOW = '2026-06-01T12:00:00.000Z';

// The reference documents declare these two responses inline rather than as components.
const addFormats = ((formatsModule as unknown as { default?: typeof formatsModule }).default ??
  formatsModule) as unknown as (ajv: Ajv) => Ajv;
const mainDoc = JSON.parse(readFileSync(new URL('./reference/main-openapi.json', import.meta.url), 'utf8'));
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
function inlineResponse(path: string, method: string, status: string) {
  const schema = mainDoc.paths[path][method].responses[status].content['application/json'].schema;
  const validate = ajv.compile(toJsonSchema(schema) as object);
  return (value: unknown) => {
    if (!validate(value)) throw new Error(`${method} ${path}: ${ajv.errorsText(validate.errors)}`);
  };
}
const assertCreatedCompany = inlineResponse('/companies/', 'post', '201');
const assertColumnValues = inlineResponse('/custom-columns/values/', 'put', '200');

const fields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

describe('the OpenAPI document of the company, note and custom-column writes', () => {
  const doc = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
  const body = (path: string, method: string) =>
    doc.paths[path][method].requestBody.content['application/json'].schema;

  it('declares the bodies of POST /v1/notes/ and PUT /v1/custom-columns/values/ as JSON arrays', () => {
    expect(body('/v1/notes/', 'post')).to.include({ type: 'array', maxItems: 100 });
    expect(body('/v1/notes/', 'post').items.required).to.deep.equal(['note']);
    expect(body('/v1/custom-columns/values/', 'put').type).to.equal('array');
  });

  it('answers 201 to the creates and 200 to the changes', () => {
    expect(Object.keys(doc.paths['/v1/companies/'].post.responses)).to.include('201');
    expect(Object.keys(doc.paths['/v1/notes/'].post.responses)).to.include('201');
    expect(Object.keys(doc.paths['/v1/companies/{company_id}/'].patch.responses)).to.include('200');
    expect(Object.keys(doc.paths['/v1/custom-columns/values/'].put.responses)).to.include('200');
  });
});

for (const dialect of dialects) {
  describe(`company, note and custom-column writes (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let clock: TestClock;
    /** An editor limited to Acme, and that editor's user. */
    let limitedEditor: string;
    let limitedUser: User;
    /** A viewer limited to Acme. */
    let limitedViewer: string;
    let textColumn: string;
    let selectColumn: string;
    let multiColumn: string;
    let options: Record<string, string>;

    async function addUser(extra: Partial<User>, companyIds: string[] = []) {
      const user: User = {
        id: newId(),
        firm_id: fx.firmA.id,
        email: `${newId().toLowerCase()}@alpha.test`,
        first_name: 'Limited',
        last_name: 'User',
        password_hash: 'x',
        role: 'editor',
        all_companies: false,
        can_view_documents: true,
        can_edit_cap_table: false,
        is_active: true,
        created_at: NOW,
        ...extra,
      };
      await fx.repos.users.create(user, companyIds);
      return { user, token: await issueToken(fx.repos, user) };
    }

    const call = (method: string, path: string, body: unknown, token = fx.editor.rest, key?: string) =>
      api(server.url, path, {
        token,
        method,
        body,
        headers: key ? { 'Idempotency-Key': key } : {},
      });
    const count = async (table: string) => Number((await t.db(table).count({ n: '*' }))[0]!.n);

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      clock = new TestClock(new Date(NOW));
      server = await startTestServer(t.db, { clock });
      const limited = await addUser({}, [fx.companies.acme.id]);
      limitedEditor = limited.token;
      limitedUser = limited.user;
      limitedViewer = (await addUser({ role: 'viewer' }, [fx.companies.acme.id])).token;
      const column = async (
        name: string,
        type: 'text' | 'select' | 'multi_select',
        labels: string[] = [],
      ) => {
        const id = newId();
        const opts = labels.map((value, position) => ({ id: newId(), value, color: '#112233', position }));
        await fx.repos.customColumns.createColumn(
          { id, firm_id: fx.firmA.id, name, type, created_at: NOW },
          opts,
        );
        return { id, opts };
      };
      textColumn = (await column('Owner', 'text')).id;
      const select = await column('Stage', 'select', ['Seed', 'Series A']);
      const multi = await column('Tags', 'multi_select', ['AI', 'B2B', 'Climate']);
      selectColumn = select.id;
      multiColumn = multi.id;
      options = Object.fromEntries([...select.opts, ...multi.opts].map((o) => [o.value, o.id]));
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    describe('POST /v1/companies/', () => {
      it('creates a company with the reference defaults and answers 201 with it', async () => {
        const res = await call('POST', '/v1/companies/', { name: 'Nimbus Labs' });
        expect(res.status).to.equal(201);
        assertCreatedCompany(res.body);
        assertReference('main', 'Company', res.body);
        expect(res.body).to.include({
          name: 'Nimbus Labs',
          slug: 'nimbus-labs',
          description: '',
          city: '',
          sector: 'Other',
          fiscal_year_end: '12-31',
          website: '',
          status: 'active',
          reporting_currency: 'USD',
          investment_lead_id: null,
        });
        const list = await api(server.url, '/v1/companies/?name=nimbus', { token: fx.viewer.rest });
        expect(list.body.results.map((c: { id: string }) => c.id)).to.deep.equal([res.body.id]);
        assertReference('main', 'Company', ...list.body.results);
      });

      it('keeps the given fields and accepts the fiscal year end as MM/DD or MM-DD', async () => {
        const body = {
          name: 'Orbit Freight',
          description: 'Freight by rail.',
          city: 'Denver',
          sector: 'Logistics',
          fiscal_year_end: '03/31',
          website: 'https://orbit.example',
        };
        const res = await call('POST', '/v1/companies/', body, fx.admin.rest);
        expect(res.status).to.equal(201);
        expect(res.body).to.include({ ...body, fiscal_year_end: '03-31' });
        const dash = await call('POST', '/v1/companies/', { name: 'Orbit Two', fiscal_year_end: '06-30' });
        expect(dash.body.fiscal_year_end).to.equal('06-30');
      });

      it('gives each new company a slug unique in its firm, with a suffix on a collision', async () => {
        const slugs: string[] = [];
        for (const name of ['Acme Analytics', 'ACME analytics!', 'Zeta Zero', '¡¿!']) {
          const res = await call('POST', '/v1/companies/', { name });
          expect(res.status).to.equal(201);
          slugs.push(res.body.slug);
        }
        // Zeta Zero's slug belongs to the other firm only, so this firm may use it.
        expect(slugs).to.deep.equal(['acme-analytics-2', 'acme-analytics-3', 'zeta-zero', 'company']);
      });

      it('gives concurrent creates of one name distinct slugs', async () => {
        const responses = await Promise.all(
          Array.from({ length: 4 }, () => call('POST', '/v1/companies/', { name: 'Parallel Co' })),
        );
        expect(responses.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
        expect(responses.map((r) => r.body.slug).sort()).to.deep.equal([
          'parallel-co',
          'parallel-co-2',
          'parallel-co-3',
          'parallel-co-4',
        ]);
      });

      it('answers 400 naming every bad field and writes nothing', async () => {
        const before = await count('companies');
        const missing = await call('POST', '/v1/companies/', { sector: 'Fintech' });
        expect(missing.status).to.equal(400);
        expect(missing.body.code).to.equal('missing_parameter');
        expect(fields(missing.body)).to.deep.equal(['name']);
        const bad = await call('POST', '/v1/companies/', {
          name: '  ',
          sector: 'SaaS',
          fiscal_year_end: '02/30',
          website: 'x'.repeat(256),
          city: 7,
        });
        expect(bad.status).to.equal(400);
        expect(bad.body.code).to.equal('invalid_parameter');
        expect(fields(bad.body).sort()).to.deep.equal([
          'city',
          'fiscal_year_end',
          'name',
          'sector',
          'website',
        ]);
        for (const fye of ['12/32', '13/01', '1/31', '12.31']) {
          const res = await call('POST', '/v1/companies/', { name: 'X', fiscal_year_end: fye });
          expect(res.status, fye).to.equal(400);
          expect(fields(res.body)).to.deep.equal(['fiscal_year_end']);
        }
        expect(await count('companies')).to.equal(before);
      });

      it('lets a creator limited to listed companies see what they created, and no other limited user', async () => {
        const res = await call('POST', '/v1/companies/', { name: 'Limited Create' }, limitedEditor);
        expect(res.status).to.equal(201);
        const own = await api(server.url, `/v1/companies/${res.body.id}/`, { token: limitedEditor });
        expect(own.status).to.equal(200);
        const other = await api(server.url, `/v1/companies/${res.body.id}/`, { token: limitedViewer });
        expect(other.status).to.equal(404);
        const everyone = await api(server.url, `/v1/companies/${res.body.id}/`, { token: fx.viewer.rest });
        expect(everyone.status).to.equal(200);
        const elsewhere = await api(server.url, `/v1/companies/${res.body.id}/`, { token: fx.other.rest });
        expect(elsewhere.status).to.equal(404);
      });

      it('records the creation in the change log with who and when', async () => {
        const res = await call('POST', '/v1/companies/', { name: 'Logged Co', city: 'Austin' });
        const rows = await fx.repos.changeLog.of(fx.firmA.id, 'companies', res.body.id);
        expect(rows).to.have.length(1);
        expect(rows[0]).to.include({ action: 'create', changed_by: fx.editor.user.id, changed_at: NOW });
        expect(JSON.parse(rows[0]!.changes!)).to.include({
          name: 'Logged Co',
          city: 'Austin',
          slug: 'logged-co',
        });
      });

      it('replays an idempotent retry without creating a second company', async () => {
        const before = await count('companies');
        const first = await call(
          'POST',
          '/v1/companies/',
          { name: 'Once Only' },
          fx.editor.rest,
          'create-once',
        );
        const again = await call(
          'POST',
          '/v1/companies/',
          { name: 'Once Only' },
          fx.editor.rest,
          'create-once',
        );
        expect(first.status).to.equal(201);
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
        expect(await count('companies')).to.equal(before + 1);
        expect(await count('change_log')).to.be.greaterThan(0);
        const logged = await fx.repos.changeLog.of(fx.firmA.id, 'companies', first.body.id);
        expect(logged).to.have.length(1);
      });

      it('refuses viewers with 403 and writes nothing', async () => {
        const before = await count('companies');
        const res = await call('POST', '/v1/companies/', { name: 'Viewer Co' }, fx.viewer.rest);
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('permission_denied');
        expect(await count('companies')).to.equal(before);
      });
    });

    describe('PATCH /v1/companies/{company_id}/', () => {
      let id: string;
      let slug: string;
      beforeEach(async () => {
        const created = await call('POST', '/v1/companies/', { name: 'Patch Target', city: 'Oslo' });
        id = created.body.id;
        slug = created.body.slug;
      });

      it('changes every field the reference allows and answers 200 with the company', async () => {
        clock.advance(1000);
        const body = {
          firm_sector: 'Infra',
          investment_lead_id: fx.admin.user.id,
          city: 'Bergen',
          description: 'Now in Bergen.',
          fiscal_year_end: '09/30',
          name: 'Patch Target Renamed',
          sector: 'Security',
          website: 'https://patch.example',
        };
        const res = await call('PATCH', `/v1/companies/${id}/`, body);
        expect(res.status).to.equal(200);
        assertReference('main', 'Company', res.body);
        expect(res.body).to.include({ ...body, id, fiscal_year_end: '09-30', slug });
        const read = await api(server.url, `/v1/companies/${id}/`, { token: fx.viewer.rest });
        expect(read.body).to.deep.equal(res.body);
        const [row] = await t.db('companies').where({ id });
        expect(row.updated_at).to.equal(clock.now().toISOString());
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'companies', id);
        expect(log.map((r) => r.action)).to.deep.equal(['create', 'update']);
        expect(JSON.parse(log[1]!.changes!).city).to.deep.equal({ from: 'Oslo', to: 'Bergen' });
        expect(log[1]!.changed_by).to.equal(fx.editor.user.id);
      });

      it('ignores read-only and unknown fields and clears the lead with null', async () => {
        await call('PATCH', `/v1/companies/${id}/`, { investment_lead_id: fx.admin.user.id });
        const res = await call('PATCH', `/v1/companies/${id}/`, {
          investment_lead_id: null,
          slug: 'hijack',
          status: 'exited',
          reporting_currency: 'EUR',
        });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ investment_lead_id: null, slug, status: 'active' });
        expect(res.body.reporting_currency).to.equal('USD');
      });

      it('answers 400 naming every bad field, and nothing changes', async () => {
        const empty = await call('PATCH', `/v1/companies/${id}/`, { slug: 'x' });
        expect(empty.status).to.equal(400);
        expect(empty.body.code).to.equal('missing_parameter');
        expect(fields(empty.body)).to.include.members([
          'name',
          'sector',
          'firm_sector',
          'investment_lead_id',
        ]);
        const bad = await call('PATCH', `/v1/companies/${id}/`, {
          name: '',
          sector: 'Nope',
          fiscal_year_end: '00/10',
          city: 'y'.repeat(256),
        });
        expect(bad.status).to.equal(400);
        expect(fields(bad.body).sort()).to.deep.equal(['city', 'fiscal_year_end', 'name', 'sector']);
        for (const lead of ['nobody', fx.other.user.id]) {
          const res = await call('PATCH', `/v1/companies/${id}/`, { investment_lead_id: lead, city: 'Rome' });
          expect(res.status).to.equal(400);
          expect(fields(res.body)).to.deep.equal(['investment_lead_id']);
        }
        const [row] = await t.db('companies').where({ id });
        expect(row.city).to.equal('Oslo');
      });

      it("answers 404 for another firm's, an inaccessible and an unknown company, as reads do", async () => {
        const cases: [string, string][] = [
          [fx.companies.zeta.id, fx.editor.rest],
          [fx.companies.beta.id, limitedEditor],
          ['unknown', fx.editor.rest],
        ];
        for (const [company, token] of cases) {
          const read = await api(server.url, `/v1/companies/${company}/`, { token });
          const res = await call('PATCH', `/v1/companies/${company}/`, { city: 'Nowhere' }, token);
          expect(res.status, company).to.equal(404);
          expect(res.body.code).to.equal(read.body.code);
          expect(res.body.detail).to.equal(read.body.detail);
        }
        const [zeta] = await t.db('companies').where({ id: fx.companies.zeta.id });
        expect(zeta.city).to.equal('Boston');
      });

      it('replays an idempotent retry without recording a second change', async () => {
        const first = await call(
          'PATCH',
          `/v1/companies/${id}/`,
          { city: 'Turku' },
          fx.editor.rest,
          `patch-${id}`,
        );
        await call('PATCH', `/v1/companies/${id}/`, { city: 'Espoo' });
        const again = await call(
          'PATCH',
          `/v1/companies/${id}/`,
          { city: 'Turku' },
          fx.editor.rest,
          `patch-${id}`,
        );
        expect(again.status).to.equal(200);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
        const [row] = await t.db('companies').where({ id });
        expect(row.city).to.equal('Espoo');
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'companies', id);
        expect(log.map((r) => r.action).sort()).to.deep.equal(['create', 'update', 'update']);
      });

      it('refuses viewers with 403', async () => {
        const res = await call('PATCH', `/v1/companies/${id}/`, { city: 'Lima' }, fx.viewer.rest);
        expect(res.status).to.equal(403);
        const [row] = await t.db('companies').where({ id });
        expect(row.city).to.equal('Oslo');
      });
    });

    describe('POST /v1/notes/', () => {
      it('adds several notes to one company as the caller and answers 201 with them', async () => {
        const res = await call('POST', '/v1/notes/', [
          { note: 'Board meeting: **quokka** runway extended.', company_id: fx.companies.gamma.id },
          { note: 'Second note', company_slug: fx.companies.gamma.slug, author_id: fx.editor.user.id },
        ]);
        expect(res.status).to.equal(201);
        expect(res.body).to.have.length(2);
        assertReference('main', 'PortfolioCompanyNoteAPI', ...res.body);
        expect(res.body.map((n: { note: string }) => n.note)).to.deep.equal([
          'Board meeting: **quokka** runway extended.',
          'Second note',
        ]);
        for (const note of res.body) {
          expect(note).to.include({
            company_id: fx.companies.gamma.id,
            author_id: fx.editor.user.id,
            author: 'editor Tester',
            email: 'editor@alpha.test',
            created_at: clock.now().toISOString(),
          });
        }
        const list = await api(server.url, `/v1/notes/?company_id=${fx.companies.gamma.id}`, {
          token: fx.viewer.rest,
        });
        expect(list.body.results.map((n: { id: string }) => n.id).sort()).to.deep.equal(
          res.body.map((n: { id: string }) => n.id).sort(),
        );
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'notes', res.body[0].id);
        expect(log[0]).to.include({ action: 'create', changed_by: fx.editor.user.id });
      });

      it('makes new notes findable by note search at once', async () => {
        const res = await call('POST', '/v1/notes/', [
          { note: 'The wombat pilot signed today.', company_id: fx.companies.acme.id },
        ]);
        expect(res.status).to.equal(201);
        const found = await api(server.url, '/v1/notes/search/?query=wombat', { token: fx.viewer.rest });
        expect(found.status).to.equal(200);
        expect(found.body.results.map((n: { id: string }) => n.id)).to.deep.equal([res.body[0].id]);
      });

      it('answers 400 naming every offending item field, and writes none of the notes', async () => {
        const before = await count('notes');
        const shape = await call('POST', '/v1/notes/', [
          { note: 'fine', company_id: fx.companies.acme.id },
          { company_id: fx.companies.acme.id },
          { note: '   ', company_id: fx.companies.acme.id },
        ]);
        expect(shape.status).to.equal(400);
        expect(fields(shape.body)).to.deep.equal(['items[1].note', 'items[2].note']);
        const rules = await call('POST', '/v1/notes/', [
          { note: 'a', company_id: fx.companies.acme.id },
          { note: 'b', company_id: fx.companies.beta.id },
          { note: 'c', company_id: fx.companies.acme.id, author_id: fx.admin.user.id },
          { note: 'd', company_id: fx.companies.acme.id, company_slug: fx.companies.beta.slug },
        ]);
        expect(rules.status).to.equal(400);
        expect(fields(rules.body)).to.deep.equal(['items[3].company_slug']);
        const mixed = await call('POST', '/v1/notes/', [
          { note: 'a', company_id: fx.companies.acme.id },
          { note: 'b', company_id: fx.companies.beta.id },
          { note: 'c', company_id: fx.companies.acme.id, author_id: fx.admin.user.id },
          { note: 'd' },
        ]);
        expect(mixed.status).to.equal(400);
        expect(fields(mixed.body)).to.deep.equal(['items[3].company_id']);
        const authors = await call('POST', '/v1/notes/', [
          { note: 'a', company_id: fx.companies.acme.id },
          { note: 'b', company_id: fx.companies.beta.id },
          { note: 'c', company_id: fx.companies.acme.id, author_id: fx.admin.user.id },
        ]);
        expect(fields(authors.body)).to.deep.equal(['items[1].company_id', 'items[2].author_id']);
        for (const body of [[], {}, 'text', Array.from({ length: 101 }, () => ({ note: 'n' }))]) {
          const res = await call('POST', '/v1/notes/', body);
          expect(res.status).to.equal(400);
          expect(fields(res.body)).to.deep.equal(['items']);
        }
        expect(await count('notes')).to.equal(before);
      });

      it("answers 404 for another firm's or an inaccessible company, as the notes listing does", async () => {
        const bravoOnly = await call('POST', '/v1/companies/', { name: 'Bravo Only' }, fx.other.rest);
        expect(bravoOnly.status).to.equal(201);
        const before = await count('notes');
        const cases: [Record<string, string>, string, string][] = [
          [{ company_id: fx.companies.zeta.id }, fx.editor.rest, 'company_id'],
          [{ company_slug: bravoOnly.body.slug }, fx.editor.rest, 'company_slug'],
          [{ company_id: fx.companies.beta.id }, limitedEditor, 'company_id'],
        ];
        for (const [ref, token, field] of cases) {
          const query = new URLSearchParams(ref).toString();
          const read = await api(server.url, `/v1/notes/?${query}`, { token });
          expect(read.status).to.equal(404);
          const res = await call(
            'POST',
            '/v1/notes/',
            [
              { note: 'x', company_id: fx.companies.acme.id },
              { note: 'y', ...ref },
            ],
            token,
          );
          expect(res.status).to.equal(404);
          expect(res.body.code).to.equal(read.body.code);
          expect(fields(res.body)).to.deep.equal([`items[1].${field}`]);
        }
        expect(await count('notes')).to.equal(before);
      });

      it('replays an idempotent retry without writing the notes twice', async () => {
        const before = await count('notes');
        const body = [{ note: 'only once', company_id: fx.companies.acme.id }];
        const first = await call('POST', '/v1/notes/', body, limitedEditor, 'notes-once');
        const again = await call('POST', '/v1/notes/', body, limitedEditor, 'notes-once');
        expect(first.status).to.equal(201);
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
        expect(first.body[0].author_id).to.equal(limitedUser.id);
        expect(await count('notes')).to.equal(before + 1);
      });

      it('refuses viewers with 403', async () => {
        const res = await call(
          'POST',
          '/v1/notes/',
          [{ note: 'x', company_id: fx.companies.acme.id }],
          fx.viewer.rest,
        );
        expect(res.status).to.equal(403);
      });
    });

    describe('PUT /v1/custom-columns/values/', () => {
      const put = (body: unknown, token = fx.editor.rest, key?: string) =>
        call('PUT', '/v1/custom-columns/values/', body, token, key);
      const stored = async (companyId: string) => {
        const res = await api(server.url, `/v1/custom-columns/?company_id=${companyId}`, {
          token: fx.viewer.rest,
        });
        return Object.fromEntries(
          res.body.results.map((v: { name: string; value: unknown }) => [v.name, v.value]),
        );
      };

      it('sets text, select and multi_select values and answers 200 with them', async () => {
        const res = await put([
          { company_id: fx.companies.acme.id, custom_column_id: textColumn, value: 'Dana' },
          {
            company_slug: fx.companies.acme.slug,
            custom_column_id: selectColumn,
            selected_options: [{ option_id: options.Seed }],
          },
          {
            company_id: fx.companies.acme.id,
            custom_column_id: multiColumn,
            selected_options: [{ value: 'Climate' }, { option_id: options.AI, value: 'AI' }],
          },
          { company_id: fx.companies.beta.id, custom_column_id: selectColumn, value: 'Series A' },
        ]);
        expect(res.status).to.equal(200);
        assertColumnValues(res.body);
        expect(res.body[0]).to.deep.equal({
          company_id: fx.companies.acme.id,
          company_slug: fx.companies.acme.slug,
          custom_column_id: textColumn,
          value: 'Dana',
          selected_options: [],
        });
        expect(res.body[2].selected_options).to.deep.equal([
          { option_id: options.AI, value: 'AI', color: '#112233' },
          { option_id: options.Climate, value: 'Climate', color: '#112233' },
        ]);
        expect(res.body[2].value).to.equal('AI, Climate');
        expect(await stored(fx.companies.acme.id)).to.deep.equal({
          Owner: 'Dana',
          Stage: { id: options.Seed, value: 'Seed', color: '#112233' },
          Tags: [
            { id: options.AI, value: 'AI', color: '#112233' },
            { id: options.Climate, value: 'Climate', color: '#112233' },
          ],
        });
        expect((await stored(fx.companies.beta.id)).Stage.value).to.equal('Series A');
      });

      it('replaces the value fully, and empties it on request', async () => {
        const gamma = fx.companies.gamma.id;
        await put([
          {
            company_id: gamma,
            custom_column_id: multiColumn,
            selected_options: [{ value: 'AI' }, { value: 'B2B' }],
          },
          { company_id: gamma, custom_column_id: textColumn, value: 'Sam' },
        ]);
        clock.advance(1000);
        const res = await put([
          { company_id: gamma, custom_column_id: multiColumn, selected_options: [{ value: 'B2B' }] },
          { company_id: gamma, custom_column_id: textColumn, value: '' },
        ]);
        expect(res.status).to.equal(200);
        expect(await stored(gamma)).to.deep.equal({
          Owner: null,
          Tags: [{ id: options.B2B, value: 'B2B', color: '#112233' }],
        });
        const rows = await t.db('custom_column_values').where({ company_id: gamma, column_id: multiColumn });
        expect(rows).to.have.length(1);
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'custom_column_values', rows[0].id);
        expect(log.map((r) => r.action)).to.deep.equal(['create', 'update']);
        expect(log[1]!.changed_by).to.equal(fx.editor.user.id);
      });

      it('answers 400 naming every offending field, and writes none of the values', async () => {
        const acme = fx.companies.acme.id;
        await put([{ company_id: acme, custom_column_id: textColumn, value: 'Before' }]);
        const before = await count('custom_column_values');
        const res = await put([
          { company_id: acme, custom_column_id: textColumn, value: 'After' },
          { company_id: acme, custom_column_id: selectColumn, selected_options: [{ option_id: options.AI }] },
          { company_id: fx.companies.gamma.id, custom_column_id: selectColumn, value: 'Series Z' },
          {
            company_id: fx.companies.beta.id,
            custom_column_id: selectColumn,
            selected_options: [{ value: 'Seed' }, { value: 'Series A' }],
          },
          {
            company_id: fx.companies.beta.id,
            custom_column_id: multiColumn,
            selected_options: [{ color: '#000000' }],
          },
          {
            company_id: fx.companies.beta.id,
            custom_column_id: textColumn,
            selected_options: [{ value: 'AI' }],
          },
          { company_id: fx.companies.beta.id, custom_column_id: 'no-such-column', value: 'x' },
          { company_id: fx.companies.gamma.id, custom_column_id: multiColumn, value: 'AI' },
          { company_id: acme, custom_column_id: textColumn, value: 'Twice' },
        ]);
        expect(res.status).to.equal(400);
        expect(fields(res.body)).to.deep.equal([
          'items[1].selected_options[0].option_id',
          'items[2].value',
          'items[3].selected_options',
          'items[4].selected_options[0].option_id',
          'items[5].selected_options',
          'items[6].custom_column_id',
          'items[7].selected_options',
          'items[8].custom_column_id',
        ]);
        expect(res.body.detail).to.match(/Seed/);
        const missing = await put([
          { company_id: acme, value: 'x' },
          { custom_column_id: textColumn, value: 'y' },
        ]);
        expect(missing.status).to.equal(400);
        expect(fields(missing.body)).to.deep.equal(['items[0].custom_column_id']);
        const noCompany = await put([{ custom_column_id: textColumn, value: 'y' }]);
        expect(fields(noCompany.body)).to.deep.equal(['items[0].company_id']);
        expect(await count('custom_column_values')).to.equal(before);
        expect((await stored(acme)).Owner).to.equal('Before');
      });

      it("answers 404 for another firm's or an inaccessible company, as the listing does", async () => {
        for (const [companyId, token] of [
          [fx.companies.zeta.id, fx.editor.rest],
          [fx.companies.beta.id, limitedEditor],
        ] as const) {
          const read = await api(server.url, `/v1/custom-columns/?company_id=${companyId}`, { token });
          expect(read.status).to.equal(404);
          const res = await put([{ company_id: companyId, custom_column_id: textColumn, value: 'x' }], token);
          expect(res.status).to.equal(404);
          expect(res.body.code).to.equal(read.body.code);
          expect(fields(res.body)).to.deep.equal(['items[0].company_id']);
        }
        const foreign = await t.db('custom_column_values').where({ company_id: fx.companies.zeta.id });
        expect(foreign).to.have.length(0);
      });

      it('refuses an editor limited to Acme a batch that also names another company, writing none of it', async () => {
        const before = (await stored(fx.companies.acme.id)).Owner;
        const logBefore = await count('change_log');
        const res = await put(
          [
            { company_id: fx.companies.acme.id, custom_column_id: textColumn, value: 'Limited' },
            { company_id: fx.companies.beta.id, custom_column_id: textColumn, value: 'Limited' },
          ],
          limitedEditor,
        );
        expect(res.status).to.equal(404);
        expect(fields(res.body)).to.deep.equal(['items[1].company_id']);
        expect((await stored(fx.companies.acme.id)).Owner).to.equal(before);
        expect(await count('change_log')).to.equal(logBefore);
        const own = await put(
          [{ company_id: fx.companies.acme.id, custom_column_id: textColumn, value: 'Limited' }],
          limitedEditor,
        );
        expect(own.status, JSON.stringify(own.body)).to.equal(200);
        expect((await stored(fx.companies.acme.id)).Owner).to.equal('Limited');
      });

      it('replays an idempotent retry without writing again', async () => {
        const body = [{ company_id: fx.companies.acme.id, custom_column_id: textColumn, value: 'Idem' }];
        const first = await put(body, fx.editor.rest, 'columns-once');
        const logBefore = await count('change_log');
        const again = await put(body, fx.editor.rest, 'columns-once');
        expect(again.status).to.equal(200);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
        expect(await count('change_log')).to.equal(logBefore);
      });

      it('refuses viewers with 403', async () => {
        const res = await put(
          [{ company_id: fx.companies.acme.id, custom_column_id: textColumn, value: 'v' }],
          fx.viewer.rest,
        );
        expect(res.status).to.equal(403);
      });
    });

    describe('over MCP', () => {
      let writes: RunningServer;
      let readOnly: string;
      let readWrite: string;
      const tools = ['create_company', 'update_company', 'create_notes', 'update_custom_column_values'];

      const mcp = (token: string, method: string, params?: unknown) =>
        api(writes.url, '/mcp', {
          token,
          method: 'POST',
          headers: { Accept: 'application/json, text/event-stream' },
          body: { jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) },
        });

      before(async () => {
        writes = await startTestServer(t.db, {
          clock,
          env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET },
        });
        readOnly = (await signInFlow(writes.url, new WebClient(writes.url), { scope: 'read' })).tokens
          .access_token;
        readWrite = (await signInFlow(writes.url, new WebClient(writes.url), { scope: 'read write' })).tokens
          .access_token;
      });
      after(async () => {
        await writes?.close();
      });

      it('lists the four writes only to a token with the write scope', async () => {
        const names = async (token: string) =>
          (await mcp(token, 'tools/list')).body.result.tools.map((x: { name: string }) => x.name);
        expect(await names(readWrite)).to.include.members(tools);
        for (const name of tools) expect(await names(readOnly)).to.not.include(name);
      });

      it('refuses every one of them to a read-only token with 403 insufficient_scope, writing nothing', async () => {
        const before = await Promise.all(['companies', 'notes', 'custom_column_values'].map(count));
        const calls: Record<string, unknown> = {
          create_company: { name: 'Read Only Co' },
          update_company: { company_id: fx.companies.acme.id, city: 'Nope' },
          create_notes: { items: [{ note: 'n', company_id: fx.companies.acme.id }] },
          update_custom_column_values: {
            items: [{ company_id: fx.companies.acme.id, custom_column_id: textColumn, value: 'ro' }],
          },
        };
        for (const name of tools) {
          const res = await mcp(readOnly, 'tools/call', { name, arguments: calls[name] });
          expect(res.status, name).to.equal(403);
          expect(res.headers.get('www-authenticate')).to.include('error="insufficient_scope"');
        }
        expect(await Promise.all(['companies', 'notes', 'custom_column_values'].map(count))).to.deep.equal(
          before,
        );
      });

      it('creates a company and notes through the same tools as REST', async () => {
        const created = await mcp(readWrite, 'tools/call', {
          name: 'create_company',
          arguments: { name: 'Mcp Made' },
        });
        const company = created.body.result.structuredContent;
        expect(company.slug).to.equal('mcp-made');
        const notes = await mcp(readWrite, 'tools/call', {
          name: 'create_notes',
          arguments: { items: [{ note: 'via mcp', company_id: company.id }] },
        });
        expect(notes.body.result.isError).to.not.equal(true);
        expect(notes.body.result.structuredContent.results[0]).to.include({
          company_id: company.id,
          author_id: fx.admin.user.id,
        });
      });
    });
  });
}
