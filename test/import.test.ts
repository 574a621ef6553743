import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importCommand } from '../cli/commands/import.ts';
import { parseCsv } from '../cli/csv.ts';
import { CliError } from '../cli/errors.ts';
import { parseCommandArgs } from '../cli/program.ts';
import { standardCategoryId } from '../core/categories.ts';
import { systemClock } from '../core/clock.ts';
import { createRepos } from '../db/repos/index.ts';
import { loadConfig } from '../server/config.ts';
import { insertCustomCategory, insertDatum, insertFxRate } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';

const BIN = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pds-import-'));
let fileCounter = 0;

function file(name: string, content: string): string {
  const path = join(dir, `${++fileCounter}-${name}`);
  writeFileSync(path, content);
  return path;
}

describe('the CSV reader', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and CRLF line ends', () => {
    const records = parseCsv('\ufeffa,b,c\r\n"x, y","say ""hi""",\r\n"two\nlines",2,3\n\n4,5,6');
    expect(records).to.deep.equal([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['x, y', 'say "hi"', ''] },
      { line: 3, fields: ['two\nlines', '2', '3'] },
      { line: 6, fields: ['4', '5', '6'] },
    ]);
  });

  it('names the line of an unclosed quote or a stray quote', () => {
    expect(() => parseCsv('a,b\n1,"open\n2,3\n'))
      .to.throw(/not closed/)
      .with.property('line', 2);
    expect(() => parseCsv('a,b\n1,2\n3,x"y\n'))
      .to.throw(/quote inside/)
      .with.property('line', 3);
    expect(() => parseCsv('a,b\n"1"x,2\n'))
      .to.throw(/closing quote/)
      .with.property('line', 2);
  });
});

for (const dialect of dialects) {
  describe(`portfolio import (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let boardNotes: string;

    /** Runs the import command in-process as `portfolio` would: exit 1 and `portfolio: …` on a failure. */
    async function run(argv: string[]) {
      let stdout = '';
      let stderr = '';
      const io = {
        out: (s: string) => {
          stdout += s;
        },
        err: (s: string) => {
          stderr += s;
        },
        env: {},
      };
      const args = await parseCommandArgs(importCommand, argv);
      let code = 0;
      try {
        await importCommand.run(
          {
            io,
            config: loadConfig({ DATABASE_URL: t.url }),
            db: t.db,
            repos: createRepos(t.db),
            clock: systemClock,
            migrated: [],
            json: args.flag('json'),
          },
          args,
        );
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        stderr += `portfolio: ${err.message}\n`;
        code = 1;
      }
      return { code, stdout, stderr };
    }

    const importFile = (path: string, ...extra: string[]) => run([path, '--firm', 'alpha', ...extra]);
    const count = async (table: string) => Number((await t.db(table).count({ n: '*' }).first())?.n);

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      boardNotes = await insertCustomCategory(t.db, fx.firmA.id, 'Board notes', 'text');
      await insertCustomCategory(t.db, fx.firmA.id, 'Health', 'select', {
        choices: ['green', 'amber', 'red'],
      });
      await insertFxRate(t.db, fx.firmA.id, 'EUR', 'USD', '2025-01-01', '1.1');
    });
    after(async () => {
      await t?.drop();
    });

    it('imports a metrics CSV with quoted fields and prints the summary', async () => {
      const csv = file(
        'metrics.csv',
        [
          'company_slug,category,date,cadence,value,currency',
          'acme-analytics,revenue,2025-01-31,month,1000.50,USD',
          'acme-analytics,cash_in_bank,2025-01-31,point_in_time,"250000",EUR',
          'beta-bio,Board notes,2025-01-31,point_in_time,"Raised, then ""paused""",',
          'beta-bio,health,2025-01-31,point_in_time,amber,',
        ].join('\r\n'),
      );
      const res = await importFile(csv);
      expect(res.stderr).to.equal('');
      expect(res.code).to.equal(0);
      expect(res.stdout).to.equal('created 4, updated 0, skipped 0\n');
      const text = await t.db('metric_data').where({ category_id: boardNotes }).first();
      expect(text.value).to.equal('Raised, then "paused"');
      expect(text.currency).to.equal(null);
      const revenue = await t
        .db('metric_data')
        .where({ company_id: fx.companies.acme.id, category_id: standardCategoryId('revenue') })
        .first();
      expect(revenue).to.include({ value: '1000.50', currency: 'USD', cadence: 'month', date: '2025-01-31' });
      expect(revenue.budget_id).to.equal(null);
    });

    it('updates changed values, skips identical ones and records the change in metric_history', async () => {
      const csv = file(
        'again.csv',
        [
          'cadence,company_slug,category,date,value,currency',
          'month,acme-analytics,revenue,2025-01-31,1100,USD',
          'point_in_time,acme-analytics,cash_in_bank,2025-01-31,250000,EUR',
          'month,acme-analytics,revenue,2025-02-28,900,USD',
        ].join('\n'),
      );
      const res = await importFile(csv, '--json');
      expect(res.code).to.equal(0);
      expect(JSON.parse(res.stdout)).to.deep.equal({ created: 1, updated: 1, skipped: 1 });
      expect(res.stderr).to.equal('');
      const revenue = await t
        .db('metric_data')
        .where({
          company_id: fx.companies.acme.id,
          category_id: standardCategoryId('revenue'),
          date: '2025-01-31',
        })
        .first();
      expect(revenue.value).to.equal('1100');
      const [history] = await t.db('metric_history').where({ datum_id: revenue.id });
      expect(history).to.include({ old_value: '1000.50', new_value: '1100', changed_by: 'import' });
    });

    it('updates a live datum but never a deleted one', async () => {
      const deleted = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.gamma.id,
        category: 'headcount',
        cadence: 'point_in_time',
        date: '2025-03-31',
        value: '10',
        currency: null,
        deletedAt: '2025-04-01T00:00:00.000Z',
      });
      const res = await importFile(
        file(
          'headcount.csv',
          'company_slug,category,date,cadence,value,currency\ngamma-grid,headcount,2025-03-31,point_in_time,12,\n',
        ),
      );
      expect(res.stdout).to.equal('created 1, updated 0, skipped 0\n');
      expect((await t.db('metric_data').where({ id: deleted }).first()).value).to.equal('10');
    });

    it('reports every bad row with its line number and writes nothing', async () => {
      const before = await count('metric_data');
      const csv = file(
        'bad.csv',
        [
          'company_slug,category,date,cadence,value,currency',
          'acme-analytics,revenue,2025-05-31,month,1,USD',
          'acme-analytics,revnue,2025-05-31,month,1,USD',
          'acme-analytics,revenue,2025-02-30,month,1,USD',
          'acme-analytic,revenue,2025-05-31,month,1,USD',
          'acme-analytics,cash_in_bank,2025-05-31,month,1,USD',
          'acme-analytics,revenue,2025-06-30,month,12k,USD',
          'acme-analytics,revenue,2025-07-31,month,5,',
          'acme-analytics,revenue,2025-08-31,month,5,usd',
          'zeta-zero,revenue,2025-05-31,month,1,EUR',
          'beta-bio,health,2025-05-31,point_in_time,purple,',
          'acme-analytics,revenue,2025-05-31,month,2,USD',
          'acme-analytics,revenue,2025-09-30,month,5',
        ].join('\n'),
      );
      const res = await importFile(csv);
      expect(res.code).to.equal(1);
      expect(res.stdout).to.equal('');
      const lines = res.stderr.trimEnd().split('\n');
      expect(lines).to.deep.equal([
        'line 3: category "revnue" is unknown (did you mean revenue?)',
        'line 4: date: is not a calendar date',
        'line 5: company_slug "acme-analytic" is not a company of firm alpha (did you mean acme-analytics?)',
        'line 6: cadence "month" does not fit cash_in_bank: use point_in_time',
        'line 7: value "12k" is not a decimal number (such as 1234.56), as revenue needs',
        'line 8: currency is required for revenue (an amount of money)',
        lines[6],
        'line 10: company_slug "zeta-zero" is not a company of firm alpha',
        'line 11: value "purple" is not a choice of the custom metric Health: green, amber, red',
        'line 12: the same metric (company, category, date, cadence, budget) as line 2',
        'line 13: has 5 field(s), the header has 6',
        `portfolio: ${csv}: 11 problem(s), nothing was imported`,
      ]);
      expect(lines[6]).to.match(/^line 9: currency: /);
      expect(await count('metric_data')).to.equal(before);
    });

    it('prints at most 20 problems and counts the rest', async () => {
      const rows = Array.from(
        { length: 25 },
        (_, i) => `acme-analytics,revnue,2025-01-${String(i + 1).padStart(2, '0')},month,1,USD`,
      );
      const res = await importFile(
        file('many.csv', ['company_slug,category,date,cadence,value,currency', ...rows].join('\n')),
      );
      expect(res.code).to.equal(1);
      const lines = res.stderr.trimEnd().split('\n');
      expect(lines).to.have.length(22);
      expect(lines[0]).to.match(/^line 2: /);
      expect(lines[19]).to.match(/^line 21: /);
      expect(lines[20]).to.equal('… and 5 more');
      expect(lines[21]).to.match(/25 problem\(s\), nothing was imported$/);
    });

    it('names a broken header and a broken quote by line', async () => {
      const header = await importFile(file('header.csv', 'company,category,date,cadence,value,currency\n'));
      expect(header.code).to.equal(1);
      expect(header.stderr).to.match(
        /^line 1: missing column\(s\) company_slug; unknown column\(s\) company: the header is/,
      );
      const quote = await importFile(
        file(
          'quote.csv',
          'company_slug,category,date,cadence,value,currency\nacme-analytics,revenue,2025-01-31,month,"1,USD\n',
        ),
      );
      expect(quote.code).to.equal(1);
      expect(quote.stderr.split('\n')[0]).to.equal('line 2: a quoted field is not closed');
    });

    it('imports a JSON bundle, then skips all of it the second time', async () => {
      const bundle = {
        companies: [
          { slug: 'delta-dynamics', name: 'Delta Dynamics', sector: 'Robotics', reporting_currency: 'EUR' },
          { slug: 'acme-analytics', city: 'Cambridge' },
        ],
        budgets: [
          { company_slug: 'delta-dynamics', name: 'Plan 2025', date: '2025-01-01', color: '#336699' },
        ],
        metrics: [
          {
            company_slug: 'delta-dynamics',
            category: 'revenue',
            date: '2025-01-31',
            cadence: 'month',
            value: 1500.25,
            currency: 'EUR',
          },
          {
            company_slug: 'delta-dynamics',
            category: 'revenue',
            date: '2025-01-31',
            cadence: 'month',
            value: '2000',
            currency: 'EUR',
            budget: 'Plan 2025',
          },
          {
            company_slug: 'delta-dynamics',
            category: 'custom',
            custom_metric: 'Board notes',
            date: '2025-01-31',
            cadence: 'point_in_time',
            value: 'Hired a CFO',
          },
        ],
        notes: [
          {
            company_slug: 'delta-dynamics',
            email: 'EDITOR@alpha.test',
            note: 'Met the founders.',
            created_at: '2025-01-10T10:00:00+02:00',
          },
        ],
        financings: [
          {
            company_slug: 'delta-dynamics',
            name: 'Seed',
            closing_date: '2025-02-01',
            pre_money_valuation: { value: '8000000', currency: 'EUR' },
            round_size: { value: 2000000, currency: 'EUR' },
            fully_diluted_shares: '10000000',
            co_investors: [{ name: 'Angel One', is_lead: true }, { name: 'Angel Two' }],
            seniority_position: 'PARI_PASSU',
            participation_type: 'NON_PARTICIPATING',
            liquidation_multiple: '1.00',
          },
          {
            company_slug: 'delta-dynamics',
            name: 'Seed Extension',
            closing_date: '2025-06-01',
            round_size: { value: '500000', currency: 'EUR', fx_rate: '1.2' },
            co_investors: [],
            seniority_position: 'PARI_PASSU',
            pari_passu_rounds: ['Seed'],
            participation_type: 'CAPPED_PARTICIPATING',
            cap_multiple: 3,
          },
        ],
      };
      const path = file('bundle.json', JSON.stringify(bundle));
      const first = await importFile(path, '--json');
      expect(first.stderr).to.equal('');
      expect(JSON.parse(first.stdout)).to.deep.equal({ created: 8, updated: 1, skipped: 0 });

      const delta = await t.db('companies').where({ firm_id: fx.firmA.id, slug: 'delta-dynamics' }).first();
      expect(delta).to.include({ name: 'Delta Dynamics', sector: 'Robotics', reporting_currency: 'EUR' });
      const acme = await t.db('companies').where({ id: fx.companies.acme.id }).first();
      expect(acme).to.include({ city: 'Cambridge', name: 'Acme Analytics' });
      const budget = await t.db('budgets').where({ company_id: delta.id }).first();
      const data = await t.db('metric_data').where({ company_id: delta.id }).orderBy('value');
      expect(data.map((d) => [d.value, d.budget_id])).to.deep.equal([
        ['1500.25', null],
        ['2000', budget.id],
        ['Hired a CFO', null],
      ]);
      const note = await t.db('notes').where({ company_id: delta.id }).first();
      expect(note.author_id).to.equal(fx.editor.user.id);
      expect(note.created_at).to.equal('2025-01-10T08:00:00.000Z');
      const seed = await t.db('financings').where({ company_id: delta.id, name: 'Seed' }).first();
      expect(seed).to.include({
        round_size_value: '2000000',
        round_size_fx_rate: '1.1',
        fully_diluted_shares: '10000000',
      });
      expect(seed.round_size_converted_value).to.equal('2200000');
      const extension = await t
        .db('financings')
        .where({ company_id: delta.id, name: 'Seed Extension' })
        .first();
      expect(extension).to.include({
        round_size_fx_rate: '1.2',
        round_size_converted_value: '600000',
        cap_multiple: '3',
      });
      expect(Boolean(extension.round_size_is_custom_rate)).to.equal(true);
      const coInvestors = await t
        .db('financing_co_investors')
        .where({ financing_id: seed.id })
        .orderBy('position');
      expect(coInvestors.map((c) => [c.name, Boolean(c.is_lead)])).to.deep.equal([
        ['Angel One', true],
        ['Angel Two', false],
      ]);
      const links = await t.db('financing_pari_passu').where({ financing_id: extension.id });
      expect(links.map((l) => l.other_financing_id)).to.deep.equal([seed.id]);

      const second = await importFile(path);
      expect(second.code).to.equal(0);
      expect(second.stdout).to.equal('created 0, updated 0, skipped 9\n');
      expect(await t.db('financing_pari_passu').where({ financing_id: extension.id })).to.have.length(1);
      expect(await t.db('financing_co_investors').where({ financing_id: seed.id })).to.have.length(2);
    });

    it('names the JSON path of every bad bundle item and writes nothing', async () => {
      const tables = ['companies', 'budgets', 'metric_data', 'notes', 'financings'];
      const before = await Promise.all(tables.map(count));
      const bundle = {
        companies: [
          { slug: 'epsilon' },
          { slug: 'Bad Slug', name: 'x' },
          { slug: 'zeta2', name: 'Z', colour: 'red' },
        ],
        budgets: [{ company_slug: 'acme-analytics', name: 'B', date: '2025-01-01', color: 'blue' }],
        metrics: [
          {
            company_slug: 'acme-analytics',
            category: 'revenue',
            date: '2025-01-31',
            cadence: 'month',
            value: '1',
            currency: 'USD',
          },
          {
            company_slug: 'acme-analytics',
            category: 'ebitdaa',
            date: '2025-01-31',
            cadence: 'month',
            value: '1',
            currency: 'USD',
          },
          {
            company_slug: 'acme-analytics',
            category: 'revenue',
            date: '2025-03-31',
            cadence: 'month',
            value: '1',
            currency: 'USD',
            budget: 'Nope',
          },
          {
            company_slug: 'acme-analytics',
            category: 'revenue',
            date: '2025-04-30',
            cadence: 'month',
            value: 2 ** 60,
            currency: 'USD',
          },
        ],
        notes: [{ company_slug: 'acme-analytics', email: 'nobody@alpha.test', note: 'hi' }],
        financings: [
          {
            company_slug: 'acme-analytics',
            name: 'A',
            closing_date: '2025-01-01',
            round_size: { value: '5', currency: null },
            participation_type: 'CAPPED_PARTICIPATING',
            pari_passu_rounds: ['Unknown'],
            co_investors: [],
          },
        ],
      };
      const res = await importFile(file('bad.json', JSON.stringify(bundle)));
      expect(res.code).to.equal(1);
      expect(res.stderr.trimEnd().split('\n')).to.deep.equal([
        'companies[0]: name is required to create the company "epsilon"',
        'companies[1]: slug: must be lower-case letters, digits, - and _',
        'companies[2]: unknown field(s) colour',
        'budgets[0]: color: must be a hex colour such as #1a2b3c',
        'metrics[1]: category "ebitdaa" is unknown (did you mean ebitda?)',
        'metrics[2]: budget "Nope" is not a budget of acme-analytics',
        'metrics[3]: value: is too large to be exact as a JSON number: give it as a string',
        'notes[0]: email "nobody@alpha.test" is not a user of firm alpha',
        'financings[0]: round_size.currency: is required when value is set',
        'financings[0]: pari_passu_rounds: is allowed only with seniority_position PARI_PASSU',
        'financings[0]: cap_multiple: is required with CAPPED_PARTICIPATING',
        res.stderr.trimEnd().split('\n')[11],
      ]);
      expect(res.stderr).to.match(/bad\.json: 11 problem\(s\), nothing was imported\n$/);
      expect(await Promise.all(tables.map(count))).to.deep.equal(before);
    });

    it('names a budget or financing round given twice for one company, with where the first one is', async () => {
      const tables = ['budgets', 'financings'];
      const before = await Promise.all(tables.map(count));
      const budget = { company_slug: 'acme-analytics', name: 'Plan', date: '2025-01-01' };
      const round = {
        company_slug: 'acme-analytics',
        name: 'Seed',
        closing_date: '2025-01-01',
        co_investors: [],
      };
      const bundle = { budgets: [budget, budget], financings: [round, { ...round, name: 'A' }, round] };
      const res = await importFile(file('twice.json', JSON.stringify(bundle)));
      expect(res.code).to.equal(1);
      expect(res.stderr.trimEnd().split('\n').slice(0, 2)).to.deep.equal([
        'budgets[1]: budget "Plan" of acme-analytics appears twice (first at budgets[0])',
        'financings[2]: financing "Seed" of acme-analytics appears twice (first at financings[0])',
      ]);
      expect(res.stderr).to.match(/twice\.json: 2 problem\(s\), nothing was imported\n$/);
      expect(await Promise.all(tables.map(count))).to.deep.equal(before);
    });

    it('imports company contacts from a CSV, then renames one and skips the rest, recorded as the service', async () => {
      const first = await importFile(
        file(
          'contacts.csv',
          'company_slug,name,email\nacme-analytics,Ada Founder,Ada@Acme.example\nbeta-bio,"Bee, CFO",bee@beta.example\n',
        ),
      );
      expect(first.stderr).to.equal('');
      expect(first.stdout).to.equal('created 2, updated 0, skipped 0\n');
      const again = await importFile(
        file(
          'contacts-again.csv',
          'email,name,company_slug\nada@acme.example,Ada Lovelace,acme-analytics\nbee@beta.example,"Bee, CFO",beta-bio\n',
        ),
      );
      expect(again.stdout).to.equal('created 0, updated 1, skipped 1\n');
      const contacts = await t.db('company_contacts').where('firm_id', fx.firmA.id).orderBy('email');
      expect(contacts.map((c) => [c.company_id, c.name, c.email])).to.deep.equal([
        [fx.companies.acme.id, 'Ada Lovelace', 'ada@acme.example'],
        [fx.companies.beta.id, 'Bee, CFO', 'bee@beta.example'],
      ]);
      const events = await t.db('events').where('type', 'like', 'contact.%').orderBy('seq');
      expect(events.map((e) => [e.type, e.actor_type])).to.deep.equal([
        ['contact.created', 'system'],
        ['contact.created', 'system'],
        ['contact.updated', 'system'],
      ]);
    });

    it('refuses a contacts CSV with any bad line, naming each, and imports none of it', async () => {
      const before = await count('company_contacts');
      const res = await importFile(
        file(
          'bad-contacts.csv',
          [
            'company_slug,name,email',
            'gamma-grid,Gus Gamma,gus@gamma.example',
            'zeta-zero,Zed,zed@zeta.example',
            'gamma-grid,,nobody@gamma.example',
            'gamma-grid,Gus Again,GUS@gamma.example',
            'gamma-grid,Not Mail,not-an-address',
          ].join('\n'),
        ),
      );
      expect(res.code).to.equal(1);
      expect(res.stderr.split('\n').slice(0, 4)).to.deep.equal([
        'line 3: company_slug: no company with slug "zeta-zero" in firm alpha',
        'line 4: name: is required',
        'line 5: email: gus@gamma.example is already given for gamma-grid at line 2',
        'line 6: email: must be an e-mail address such as founder@company.com',
      ]);
      expect(await count('company_contacts')).to.equal(before);
    });

    it('refuses an unknown firm and a file that is not JSON in one line', async () => {
      const unknown = await run([file('x.csv', 'a'), '--firm', 'nope']);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.equal(
        'portfolio: no firm with slug "nope"; "portfolio firms list" shows them\n',
      );
      const broken = await importFile(file('broken.json', '{"metrics": ['));
      expect(broken.code).to.equal(1);
      expect(broken.stderr.split('\n')[0]).to.match(/^file: is not valid JSON/);
      const missing = await importFile(join(dir, 'does-not-exist.csv'));
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.match(/cannot read .*ENOENT/);
    });

    if (dialect.name === 'sqlite') {
      it('runs as "portfolio import" from the command line, without a progress bar off a terminal', () => {
        const csv = file(
          'cli.csv',
          'company_slug,category,date,cadence,value,currency\ngamma-grid,revenue,2024-12-31,year,77,USD\n',
        );
        const res = spawnSync(process.execPath, [BIN, 'import', csv, '--firm', 'alpha'], {
          env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
          encoding: 'utf8',
        });
        expect(res.stderr).to.equal('');
        expect(res.stdout).to.equal('created 1, updated 0, skipped 0\n');
        expect(res.status).to.equal(0);
      });

      it('draws a progress bar when stderr is a terminal', function () {
        // util-linux `script` gives the command a pseudo-terminal.
        if (spawnSync('script', ['--version']).status !== 0) this.skip();
        const csv = file(
          'tty.csv',
          'company_slug,category,date,cadence,value,currency\ngamma-grid,revenue,2023-12-31,year,66,USD\n',
        );
        const command = [process.execPath, BIN, 'import', csv, '--firm', 'alpha']
          .map((a) => `'${a}'`)
          .join(' ');
        const res = spawnSync('script', ['-qec', command, '/dev/null'], {
          env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
          encoding: 'utf8',
        });
        expect(res.status, res.stdout).to.equal(0);
        expect(res.stdout).to.match(/importing \S+tty\.csv \[=+\] 100% 1\/1/);
        expect(res.stdout).to.include('created 1, updated 0, skipped 0');
      });
    }
  });
}
