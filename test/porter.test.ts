import { expect } from 'chai';
import knexFactory from 'knex';
import { porterStem } from '../core/porter.ts';
import { foldWord, stemPrefix } from '../core/search-text.ts';

/** Words with the suffixes every step of the stemmer takes off, and some it must leave. */
const WORDS = (
  'pricing priced prices price caresses ponies ties caress cats feed agreed plastered bled motoring sing ' +
  'conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational ' +
  'conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli ' +
  'vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti ' +
  'sensitiviti sensibiliti nobility capability triplicate formative formalize electriciti electrical ' +
  'hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant ' +
  'replacement adjustment dependent adoption homologou communism activate angulariti homologous effective ' +
  'bowdlerize probate rate cease controll roll generously generalization oscillators eed aing bing ' +
  'quarterly quarters revenue revenues margins hiring investors investments valuations dilution ' +
  'zeppelin narwhalish churning churn churchill naïve café straße résumés'
).split(' ');

describe('Porter stemming as the index does it', () => {
  it('stems a word to what SQLite FTS5 porter tokenizer indexes for it', async () => {
    const db = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    try {
      await db.raw(
        "create virtual table words using fts5(word, tokenize = 'porter unicode61 remove_diacritics 2')",
      );
      await db.raw("create virtual table terms using fts5vocab(words, 'instance')");
      for (const [i, word] of WORDS.entries())
        await db.raw('insert into words (rowid, word) values (?, ?)', [i + 1, word]);
      const rows = (await db.raw('select doc, term from terms order by doc')) as {
        doc: number;
        term: string;
      }[];
      const indexed = rows.map((r) => r.term);
      const mine = WORDS.map((w) => {
        const stem = porterStem(foldWord(w));
        return Buffer.from(stem, /[^\x20-\x7e]/.test(stem) ? 'latin1' : 'utf8').toString('utf8');
      });
      expect(mine).to.deep.equal(indexed);
    } finally {
      await db.destroy();
    }
  });

  it('gives pricing, priced and prices one stem', () => {
    expect(new Set(['pricing', 'priced', 'prices', 'price'].map(porterStem))).to.deep.equal(
      new Set(['price']),
    );
  });

  it('keeps what every form of a word begins with', () => {
    for (const word of WORDS.filter((w) => /^[a-z]+$/.test(w))) {
      expect(word.startsWith(stemPrefix(porterStem(word))), word).to.equal(true);
    }
  });
});
