import { expect } from 'chai';
import { passage } from '../core/search-text.ts';
import { newId } from '../db/ids.ts';
import { SEARCHED_CHARS } from '../db/migrations/014-document-parsing.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

const DOCUMENTS = 100;
const CHARS = 1_000_000;

/** About a million characters of numbered sentences, none of the words searched for below. */
function filler(): string {
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < CHARS; n++) {
    const sentence = `Sentence ${n} goes over revenue, margins and the hiring plan in detail.\n`;
    parts.push(sentence);
    size += sentence.length;
  }
  return parts.join('').slice(0, CHARS);
}

/** `text` with `words` written over it at `at`, where a sentence begins, its length kept. */
function writeAt(text: string, at: number, words: string): string {
  const start = text.indexOf('Sentence', at);
  return text.slice(0, start) + words + text.slice(start + words.length);
}

interface Match {
  id: string;
  passage: string;
}
interface Unsearchable {
  count: number;
  by_state: Record<string, number>;
}

for (const dialect of dialects) {
  describe(`search_documents over long texts (${dialect.name}) @db`, function () {
    this.timeout(180_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    const ids: string[] = [];

    /** A document of Acme (or `companyId`) with no text yet. */
    const addDocument = async (name: string, state: string, i: number, companyId = fx.companies.acme.id) => {
      const id = newId();
      const fileId = newId();
      const uploaded = new Date(Date.UTC(2026, 4, 1) + i * 60_000).toISOString();
      await fx.repos.documents.create(
        {
          id,
          firm_id: companyId === fx.companies.zeta.id ? fx.firmB.id : fx.firmA.id,
          company_id: companyId,
          information_request_id: null,
          file_id: fileId,
          name,
          parse_state: state,
          parsed_at: state === 'completed' ? uploaded : null,
          uploaded_at: uploaded,
          submitted_date: uploaded.slice(0, 10),
          source: 'upload',
        },
        { id: fileId, filename: name, content_type: 'application/pdf', size: 1, content: Buffer.from('x') },
      );
      return id;
    };

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      const base = filler();
      for (let i = 0; i < DOCUMENTS; i++) {
        let text = writeAt(base, 1_000 + i * 500, 'Our common ground. ');
        if (i === 0) {
          text = writeAt(text, SEARCHED_CHARS - 3_000, 'The airship zeppelin landed late. ');
          text = writeAt(text, CHARS - 5_000, 'A kraken surfaced at the end. ');
        }
        if (i === 1) text = writeAt(text, 150_000, 'Coffee at the Café Royal. ');
        // Characters outside the BMP count once in the database and twice in a JavaScript string.
        if (i === 2)
          text = `${'🙂'.repeat(30_000)} The walrus swam. Our common ground. ${text.slice(text.indexOf('Sentence', 60_000))}`;
        if (i === 3) {
          text = writeAt(text, 100_000, 'The narwhalish swam. ');
          text = writeAt(text, 200_000, 'A narwhal dived. ');
        }
        if (i === 4) {
          text = writeAt(text, 100_000, 'Crème fraîche. ');
          text = writeAt(text, 200_000, 'More creme. ');
        }
        if (i === 5) {
          // A word that only begins like the query's ("prickly" for "pricing") comes first.
          text = writeAt(text, 120_000, 'A prickly pear. ');
          text = writeAt(text, 150_000, 'The rooms were priced well. ');
          text = writeAt(text, 250_000, 'Prices rose. ');
        }
        const id = await addDocument(`long-${i}.pdf`, 'completed', i);
        await t.db('document_texts').insert({
          document_id: id,
          text,
          format: 'pdf',
          source_pages: null,
          char_count: text.length,
          created_at: new Date(Date.UTC(2026, 4, 1) + i * 60_000).toISOString(),
        });
        ids.push(id);
      }
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    const search = async (query: string) => {
      const [words, filter] = query.split('&');
      const path = `/v1/documents/search/?query=${encodeURIComponent(words!)}${filter ? `&${filter}` : ''}`;
      const res = await api(server.url, path, {
        token: fx.admin.rest,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as { count: number; results: Match[]; unsearchable?: Unsearchable };
    };

    it('answers 100 hits over million-character texts with the word marked where it occurs', async () => {
      const started = performance.now();
      const found = await search('common');
      expect(performance.now() - started).to.be.below(5_000);
      expect(found.count).to.equal(DOCUMENTS);
      expect(found.results).to.have.length(DOCUMENTS);
      expect(found.results.map((r) => r.id)).to.have.members(ids);
      for (const r of found.results) {
        expect(r.passage, r.id).to.match(/^….*\bOur «common» ground\. .*…$/s);
        expect(r.passage.length, r.id).to.be.at.most(170);
      }
    });

    it('shows a word that occurs only near the end of the searched part of a text', async () => {
      const found = await search('zeppelin');
      expect(found.results.map((r) => r.id)).to.deep.equal([ids[0]]);
      expect(found.results[0]!.passage).to.match(/^….*The airship «zeppelin» landed late\. .*…$/s);
    });

    it('marks every query word in the passage, around the first of them', async () => {
      const found = await search('zeppelin common');
      expect(found.results.map((r) => r.id)).to.deep.equal([ids[0]]);
      expect(found.results[0]!.passage).to.match(/Our «common» ground\./);
    });

    it('finds a word whatever its case, and marks it as written', async () => {
      const found = await search('CAFÉ');
      expect(found.results.map((r) => r.id)).to.deep.equal([ids[1]]);
      expect(found.results[0]!.passage).to.match(/Coffee at the «Café» Royal\./);
    });

    it('finds the place of a word after characters that take two code units', async () => {
      const found = await search('walrus');
      expect(found.results.map((r) => r.id)).to.deep.equal([ids[2]]);
      expect(found.results[0]!.passage).to.match(/^…The «walrus» swam\. Our common ground\. Sentence .*…$/s);
    });

    it('passes over the word inside a longer one, far into a text', async () => {
      const found = await search('narwhal');
      expect(found.results.map((r) => r.id)).to.deep.equal([ids[3]]);
      expect(found.results[0]!.passage).to.match(/^….*A «narwhal» dived\. .*…$/s);
      expect(found.results[0]!.passage).to.not.include('narwhalish');
    });

    it('shows the first occurrence far into a text even when it has accents and a later one has none', async () => {
      const found = await search('creme');
      expect(found.results.map((r) => r.id)).to.deep.equal([ids[4]]);
      expect(found.results[0]!.passage).to.match(/^….*«Crème» fraîche\. .*…$/s);
    });

    it("finds a word's other forms far into a text, past a word that only begins like them", async () => {
      for (const query of ['pricing', 'price']) {
        const found = await search(query);
        expect(found.results.map((r) => r.id)).to.deep.equal([ids[5]]);
        expect(found.results[0]!.passage).to.match(/^….*The rooms were «priced» well\. .*…$/s);
        expect(found.results[0]!.passage).to.not.include('prickly');
      }
    });

    it('says how many of your documents have no text to search yet, by state', async () => {
      expect(await search('common')).to.not.have.property('unsearchable');
      const { acme, beta, zeta } = fx.companies;
      await addDocument('queued.pdf', 'not-started', 200);
      await addDocument('queued-2.pdf', 'not-started', 201);
      await addDocument('parsing.pdf', 'in-progress', 202);
      await addDocument('broken.pdf', 'not-parseable', 203, beta.id);
      await addDocument('password.pdf', 'needs-input', 204, beta.id);
      await addDocument('elsewhere.pdf', 'not-started', 205, zeta.id);
      // A document waiting for input with a text already is searched.
      const withText = await addDocument('scanned.pdf', 'needs-input', 206);
      await t.db('document_texts').insert({
        document_id: withText,
        text: 'A scanned page.',
        format: 'pdf',
        source_pages: 1,
        char_count: 15,
        created_at: '2026-05-02T00:00:00.000Z',
      });
      const all = await search('zeppelin');
      expect(all.count).to.equal(1);
      expect(all.unsearchable).to.deep.equal({
        count: 5,
        by_state: { 'not-started': 2, 'in-progress': 1, 'not-parseable': 1, 'needs-input': 1 },
      });
      const ofBeta = await search(`zeppelin&company_id=${beta.id}`);
      expect(ofBeta.count).to.equal(0);
      expect(ofBeta.unsearchable).to.deep.equal({
        count: 2,
        by_state: { 'not-parseable': 1, 'needs-input': 1 },
      });
      expect((await search(`common&company_id=${acme.id}`)).unsearchable?.count).to.equal(3);
      const client = await mcpClient(server.url, fx.other.pat);
      const res = await client.callTool({ name: 'search_documents', arguments: { query: 'zeppelin' } });
      await client.close();
      expect(res.structuredContent).to.deep.include({
        count: 0,
        unsearchable: { count: 1, by_state: { 'not-started': 1 } },
      });
    });

    it(`searches the first ${SEARCHED_CHARS.toLocaleString('en')} characters of a text only`, async () => {
      expect((await search('kraken')).count).to.equal(0);
    });
  });
}

describe('passages cut from a window of a longer text', () => {
  it('marks the words and shows … where the longer text goes on', () => {
    const window = ' said the churn was down and churn would fall';
    expect(passage(window, ['churn'], 160, { before: true, after: true })).to.equal(
      '…said the «churn» was down and «churn» would fall…',
    );
    expect(passage('Churn fell.', ['churn'], 160, { before: false, after: false })).to.equal('«Churn» fell.');
  });
  it('never takes part of a word for a word', () => {
    expect(passage('churchill and church', ['church'])).to.equal('churchill and «church»');
    expect(passage('ſtop and Stop', ['stop'])).to.equal('ſtop and «Stop»');
    expect(passage('Straße and strasse', ['straße'])).to.equal('«Straße» and strasse');
  });
});
