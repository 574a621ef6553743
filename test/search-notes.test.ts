import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { passage, STOP_WORDS, searchWords } from '../core/search-text.ts';
import { newId } from '../db/ids.ts';
import { migrateLatest } from '../db/knex.ts';
import { migrationSource } from '../db/migrations/index.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

interface Match {
  id: string;
  company_id: string;
  company_name: string;
  author_id: string;
  created_at: string;
  passage: string;
}
interface Found {
  count: number;
  page: number;
  per_page: number;
  has_more: boolean;
  results: Match[];
}

const LONG =
  'Quarterly review of the operating plan with the whole team present. '.repeat(4) +
  'The zebra launch slipped by a month. ' +
  'Follow-up items were assigned to owners and will be checked next quarter. '.repeat(4);

// bm25 and ts_rank weigh repeats against length differently, so the queries compared are ones with a
// clear best match; near ties (a common word such as "the") may rank differently.
/** The queries whose order both databases must agree on, and the note keys each dialect answered. */
const AGREED = ['churn', 'pricing', 'priced', 'pricing churn', 'CHURN!', 'kiwi harvest'];
const orders = new Map<string, Map<string, string[]>>();

for (const dialect of dialects) {
  describe(`search_notes (${dialect.name})`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    const clients: Client[] = [];
    const notes: Record<string, string> = {};
    const keyOf = (id: string) => Object.entries(notes).find(([, v]) => v === id)?.[0] ?? id;

    async function search(token: string, args: Record<string, unknown>): Promise<Found> {
      const client = await mcpClient(server.url, token);
      clients.push(client);
      const res = await client.callTool({ name: 'search_notes', arguments: args });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      return res.structuredContent as unknown as Found;
    }
    const keys = (found: Found) => found.results.map((r) => keyOf(r.id));

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      const { acme, beta, gamma, zeta } = fx.companies;
      const note = async (key: string, companyId: string, authorId: string, day: string, text: string) => {
        notes[key] = newId();
        await fx.repos.notes.create({
          id: notes[key],
          firm_id: companyId === zeta.id ? fx.firmB.id : fx.firmA.id,
          company_id: companyId,
          author_id: authorId,
          note: text,
          created_at: `${day}T10:00:00.000Z`,
        });
      };
      const [admin, editor] = [fx.admin.user.id, fx.editor.user.id];
      await note('short', acme.id, admin, '2026-01-10', 'Churn, churn and more churn this month.');
      await note(
        'board',
        beta.id,
        editor,
        '2026-02-10',
        'The board discussed pricing and a long list of other topics including hiring plans, churn, ' +
          'the office move and the roadmap for the next year in some detail.',
      );
      await note('tiers', gamma.id, admin, '2026-03-10', 'Pricing review: pricing tiers change in March.');
      await note('plain', acme.id, editor, '2026-03-15', 'Nothing relevant here.');
      await note(
        'zeta',
        zeta.id,
        fx.other.user.id,
        '2026-03-20',
        'Zeta churn is a secret; churn everywhere.',
      );
      await note(
        'customer',
        gamma.id,
        editor,
        '2026-04-01',
        'Customer churn improved after the pricing change.',
      );
      await note('long', beta.id, admin, '2026-04-02', LONG);
      await note('kiwiOld', beta.id, admin, '2026-02-01', 'Kiwi harvest.');
      await note('kiwiNew', beta.id, admin, '2026-02-02', 'Kiwi harvest.');
      server = await startTestServer(t.db);
    });
    after(async () => {
      for (const c of clients) await c.close();
      await server?.close();
      await t?.drop();
    });

    it('ranks the best match first', async () => {
      const found = await search(fx.admin.pat, { query: 'churn' });
      expect(keys(found)).to.deep.equal(['short', 'customer', 'board']);
      expect(found).to.include({ count: 3, page: 1, per_page: 100, has_more: false });
      const first = found.results[0]!;
      expect(first).to.deep.equal({
        id: notes.short,
        company_id: fx.companies.acme.id,
        company_name: 'Acme Analytics',
        author_id: fx.admin.user.id,
        created_at: '2026-01-10T10:00:00.000Z',
        passage: '«Churn», «churn» and more «churn» this month.',
      });
    });

    it('puts the newer of two equal matches first', async () => {
      expect(keys(await search(fx.admin.pat, { query: 'kiwi' }))).to.deep.equal(['kiwiNew', 'kiwiOld']);
    });

    it('requires every word of the query', async () => {
      expect(keys(await search(fx.admin.pat, { query: 'pricing churn' }))).to.deep.equal([
        'customer',
        'board',
      ]);
      expect(keys(await search(fx.admin.pat, { query: 'pricing' }))).to.deep.equal([
        'tiers',
        'customer',
        'board',
      ]);
    });

    it('answers an empty page when nothing matches', async () => {
      const found = await search(fx.admin.pat, { query: 'unicorn' });
      expect(found).to.deep.equal({ count: 0, page: 1, per_page: 100, has_more: false, results: [] });
    });

    it('treats punctuation and search operators as plain text, never as syntax', async () => {
      for (const query of ['"*:()-^', 'NEAR(', '"', "churn* OR 'x", '&|!:*']) {
        const found = await search(fx.admin.pat, { query });
        expect(
          found.results.every((r) => r.passage.includes('«')),
          query,
        ).to.equal(true);
      }
      expect((await search(fx.admin.pat, { query: '"*:()-^' })).count).to.equal(0);
      expect(keys(await search(fx.admin.pat, { query: '"churn"*' }))).to.deep.equal([
        'short',
        'customer',
        'board',
      ]);
    });

    it('marks the match in a window of a long note', async () => {
      const [hit] = (await search(fx.admin.pat, { query: 'zebra' })).results;
      expect(hit!.passage).to.contain('The «zebra» launch slipped');
      expect(hit!.passage.startsWith('…')).to.equal(true);
      expect(hit!.passage.endsWith('…')).to.equal(true);
      expect(hit!.passage.length).to.be.below(LONG.length / 2);
    });

    it('filters by company, author and dates (both ends inclusive)', async () => {
      const gamma = fx.companies.gamma.id;
      expect(keys(await search(fx.admin.pat, { query: 'pricing', company_id: gamma }))).to.deep.equal([
        'tiers',
        'customer',
      ]);
      expect(
        keys(await search(fx.admin.pat, { query: 'churn', author_id: fx.editor.user.id })),
      ).to.deep.equal(['customer', 'board']);
      const dated = await search(fx.admin.pat, {
        query: 'pricing',
        from_date: '2026-03-10',
        to_date: '2026-04-01',
      });
      expect(keys(dated)).to.deep.equal(['tiers', 'customer']);
    });

    it('pages through the ranked results', async () => {
      const second = await search(fx.admin.pat, { query: 'churn', per_page: 1, page: 2 });
      expect(second).to.include({ count: 3, page: 2, per_page: 1, has_more: true });
      expect(keys(second)).to.deep.equal(['customer']);
      const last = await search(fx.admin.pat, { query: 'churn', per_page: 2, page: 2 });
      expect(keys(last)).to.deep.equal(['board']);
      expect(last.has_more).to.equal(false);
    });

    it("never shows another firm's notes or a company outside a restricted user's access", async () => {
      expect(keys(await search(fx.other.pat, { query: 'churn' }))).to.deep.equal(['zeta']);
      expect(keys(await search(fx.restricted.pat, { query: 'churn' }))).to.deep.equal(['short']);
      expect((await search(fx.restricted.pat, { query: 'pricing' })).count).to.equal(0);
      const client = await mcpClient(server.url, fx.restricted.pat);
      clients.push(client);
      const res = await client.callTool({
        name: 'search_notes',
        arguments: { query: 'pricing', company_id: fx.companies.gamma.id },
      });
      expect(res.isError).to.equal(true);
      expect(JSON.stringify(res.content)).to.not.contain('Gamma');
    });

    it('keeps the index in step when notes are added, changed and deleted', async () => {
      const id = newId();
      await fx.repos.notes.create({
        id,
        firm_id: fx.firmA.id,
        company_id: fx.companies.beta.id,
        author_id: fx.admin.user.id,
        note: 'An okapi sighting.',
        created_at: '2026-05-01T00:00:00.000Z',
      });
      expect((await search(fx.admin.pat, { query: 'okapi' })).results.map((r) => r.id)).to.deep.equal([id]);
      await t.db('notes').where({ id }).update({ note: 'A quokka sighting.' });
      expect((await search(fx.admin.pat, { query: 'okapi' })).count).to.equal(0);
      expect((await search(fx.admin.pat, { query: 'quokka' })).count).to.equal(1);
      await t.db('notes').where({ id }).delete();
      expect((await search(fx.admin.pat, { query: 'quokka' })).count).to.equal(0);
    });

    it('is served at GET /v1/notes/search/ with the page envelope', async () => {
      const res = await api(server.url, '/v1/notes/search/?query=churn&page_size=2', {
        token: fx.admin.rest,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.count).to.equal(3);
      expect(res.body.results.map((r: Match) => keyOf(r.id))).to.deep.equal(['short', 'customer']);
      expect(res.body.next).to.be.a('string');
      const punct = await api(server.url, `/v1/notes/search/?query=${encodeURIComponent('"*:(')}`, {
        token: fx.admin.rest,
      });
      expect(punct.status).to.equal(200);
      expect(punct.body.count).to.equal(0);
      const missing = await api(server.url, '/v1/notes/search/', { token: fx.admin.rest });
      expect(missing.status).to.equal(400);
    });

    it('finds notes written before the search migration ran', async () => {
      await t.db.migrate.down({ migrationSource });
      const id = newId();
      await fx.repos.notes.create({
        id,
        firm_id: fx.firmA.id,
        company_id: fx.companies.acme.id,
        author_id: fx.admin.user.id,
        note: 'A narwhal from before the index.',
        created_at: '2026-05-02T00:00:00.000Z',
      });
      await migrateLatest(t.db);
      expect((await search(fx.admin.pat, { query: 'narwhal' })).results.map((r) => r.id)).to.deep.equal([id]);
      expect(keys(await search(fx.admin.pat, { query: 'churn' }))).to.deep.equal([
        'short',
        'customer',
        'board',
      ]);
    });

    it('finds the other forms of a word, marks them and ranks the note with most of them first', async () => {
      // In firm B, so that firm A's answers above stay as they are.
      const zeta = fx.companies.zeta.id;
      const add = async (key: string, text: string, day: string) => {
        notes[key] = newId();
        await fx.repos.notes.create({
          id: notes[key],
          firm_id: fx.firmB.id,
          company_id: zeta,
          author_id: fx.other.user.id,
          note: text,
          created_at: `${day}T10:00:00.000Z`,
        });
      };
      await add('forms', 'Priced, prices, pricing: the price was the topic.', '2026-05-03');
      await add(
        'once',
        'Zeta prices rose in March after a long and careful review of the whole market.',
        '2026-05-04',
      );
      await add('unrelated', 'The prince and the prickly pear.', '2026-05-05');
      for (const query of ['pricing', 'priced', 'PRICES']) {
        const found = await search(fx.other.pat, { query });
        expect(keys(found), query).to.deep.equal(['forms', 'once']);
        expect(found.results[0]!.passage).to.equal(
          '«Priced», «prices», «pricing»: the «price» was the topic.',
        );
        expect(found.results[1]!.passage).to.match(/^Zeta «prices» rose in March/);
      }
    });

    it('leaves common words out of a query, and refuses a query of common words alone', async () => {
      expect(keys(await search(fx.admin.pat, { query: 'the churn of a month' }))).to.deep.equal(
        keys(await search(fx.admin.pat, { query: 'churn month' })),
      );
      const client = await mcpClient(server.url, fx.admin.pat);
      clients.push(client);
      const res = await client.callTool({ name: 'search_notes', arguments: { query: 'The a' } });
      expect(res.isError).to.equal(true);
      expect(JSON.stringify(res.content)).to.contain('query').and.to.contain('too common');
      const rest = await api(server.url, '/v1/notes/search/?query=the', { token: fx.admin.rest });
      expect(rest.status).to.equal(400);
      expect(rest.body.errors).to.deep.equal([
        { field: 'query', message: 'holds only words too common to search (the): add a more specific word' },
      ]);
    });

    if (dialect.name === 'postgres') {
      it('drops the same common words from a text as the service drops from a query', async () => {
        const res = await t.db.raw("select to_tsvector('english', ?) as v", [[...STOP_WORDS].join(' ')]);
        expect(String(res.rows[0].v)).to.equal('');
        expect(STOP_WORDS.size).to.equal(127);
      });

      it('can answer from the GIN index rather than by reading every note', async () => {
        await t.db.transaction(async (trx) => {
          await trx.raw('set local enable_seqscan = off');
          const plan = await trx.raw(
            "explain select id from notes where to_tsvector('english', notes.note) @@ plainto_tsquery('english', ?)",
            ['churn'],
          );
          expect(JSON.stringify(plan.rows)).to.contain('notes_note_search');
        });
      });
    }

    it('records its order for the cross-database comparison', async () => {
      const mine = new Map<string, string[]>();
      for (const query of AGREED) mine.set(query, keys(await search(fx.admin.pat, { query })));
      orders.set(dialect.name, mine);
    });
  });
}

describe('search_notes on SQLite and PostgreSQL', () => {
  it('answers the same notes in the same order on both', function () {
    if (dialects.length < 2) this.skip();
    const sqlite = orders.get('sqlite');
    const postgres = orders.get('postgres');
    expect(sqlite, 'both dialect suites ran').to.not.equal(undefined);
    expect(postgres, 'both dialect suites ran').to.not.equal(undefined);
    for (const query of AGREED) expect(postgres!.get(query), query).to.deep.equal(sqlite!.get(query));
  });
});

describe('search text', () => {
  it('takes only words from a query', () => {
    expect(searchWords('"churn"* OR (pricing) -- churn')).to.deep.equal(['churn', 'OR', 'pricing']);
    expect(searchWords('"*:()')).to.deep.equal([]);
  });
  it('marks words whatever their case or accents', () => {
    expect(passage('Café and CAFE', ['cafe'])).to.equal('«Café» and «CAFE»');
  });
  it("marks a word's other forms, and never a word that only begins like them", () => {
    expect(
      passage('We priced it; prices rose. Pricing is hard, said the prickly prince.', ['pricing']),
    ).to.equal('We «priced» it; «prices» rose. «Pricing» is hard, said the prickly prince.');
    expect(passage('Happiness: happy, happier, happily.', ['happy'])).to.equal(
      '«Happiness»: «happy», happier, happily.',
    );
    expect(passage('Prícing and PRICÉD', ['prices'])).to.equal('«Prícing» and «PRICÉD»');
  });
});
