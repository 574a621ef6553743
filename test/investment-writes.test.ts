import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { User } from '../core/principal.ts';
import { hashSecret } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import { inTransaction } from '../db/repos/index.ts';
import { IdGen } from '../db/seeds/random.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { signInFlow, WebClient } from './helpers/oauth.ts';
import { assertReference } from './helpers/reference.ts';
import { api, EVERY_TOOLSET, startTestServer } from './helpers/server.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const BETA = '/beta/investment';
const ROUNDS = `${BETA}/financing-rounds/add/`;
const SHARE_CLASSES = `${BETA}/share-classes/add/`;
const SECURITIES = `${BETA}/securities/add/`;
const TRANSACTIONS = `${BETA}/transactions/add/`;
const OVERRIDES = `${BETA}/overrides/upsert/`;

/** The form of every seeded cap-table id: a kind prefix, `_`, 12 letters or digits. */
const idOf = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{12}$`);

const SECURITY_SCHEMAS: Record<string, string> = {
  certificate: 'CertificateOut',
  warrant: 'WarrantOut',
  token_investment: 'TokenInvestmentOut',
  token_warrant: 'TokenWarrantOut',
  token_convertible: 'TokenConvertibleOut',
  convertible: 'ConvertibleOut',
};

const usd = (value: string | number) => ({ value, currency: 'USD' });

function fields(body: { errors?: { field: string }[] }): string[] {
  return (body.errors ?? []).map((e) => e.field);
}

async function count(db: Knex, table: string): Promise<number> {
  const row = (await db(table).count({ n: '*' }).first()) as { n: number | string };
  return Number(row.n);
}

/** Row counts of every table a cap-table write touches. */
async function counts(db: Knex): Promise<Record<string, number>> {
  const tables = [
    'financings',
    'share_classes',
    'securities',
    'transactions',
    'ownership_overrides',
    'post_money_valuation_overrides',
    'fair_value_overrides',
    'change_log',
  ];
  const out: Record<string, number> = {};
  for (const table of tables) out[table] = await count(db, table);
  return out;
}

/** An editor with the cap-table permission who may see only Acme. */
async function restrictedCapTableUser(fx: Fixture): Promise<string> {
  const user: User = {
    id: newId(),
    firm_id: fx.firmA.id,
    email: 'captable@alpha.test',
    first_name: 'Cap',
    last_name: 'Table',
    password_hash: await hashSecret('unused-password'),
    role: 'editor',
    all_companies: false,
    can_view_documents: true,
    can_edit_cap_table: true,
    is_active: true,
    created_at: T0,
  };
  await fx.repos.users.create(user, [fx.companies.acme.id]);
  return issueToken(fx.repos, user);
}

for (const dialect of dialects) {
  describe(`beta investment writes (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;
    let restricted: string;
    let fundB: string;
    const rounds: Record<'acme' | 'beta' | 'gamma' | 'zeta', string> = {
      acme: '',
      beta: '',
      gamma: '',
      zeta: '',
    };

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, { env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET } });
      mcp = await mcpClient(server.url, fx.admin.pat);
      restricted = await restrictedCapTableUser(fx);
      fundB = newId();
      await t.db('funds').insert({
        id: fundB,
        firm_id: fx.firmB.id,
        name: 'Bravo Fund I',
        size: '50000000.00',
        vintage: 2021,
        currency: 'EUR',
        created_at: T0,
      });
      const round = (company_id: string, name: string, closing_date: string, fds: string) => ({
        company_id,
        name,
        closing_date,
        pre_money_valuation: usd('8000000'),
        round_size: usd('2000000'),
        fully_diluted_shares: fds,
        co_investors: [],
      });
      const mine = await post(ROUNDS, {
        financing_rounds: [
          round(fx.companies.acme.id, 'Series A', '2024-01-15', '1000000'),
          round(fx.companies.beta.id, 'Seed', '2023-06-01', '2000000'),
          round(fx.companies.gamma.id, 'Series A', '2024-03-01', '1000000'),
        ],
      });
      expect(mine.status).to.equal(201);
      [rounds.acme, rounds.beta, rounds.gamma] = mine.body.map((r: { id: string }) => r.id);
      const theirs = await post(
        ROUNDS,
        {
          financing_rounds: [
            { ...round(fx.companies.zeta.id, 'Seed', '2024-01-01', '100'), round_size: null },
          ],
        },
        fx.other.pat,
      );
      expect(theirs.status).to.equal(201);
      rounds.zeta = theirs.body[0].id;
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    function post(path: string, body?: unknown, token = fx.admin.rest, headers?: Record<string, string>) {
      return api(server.url, path, { method: 'POST', token, body, headers });
    }
    function put(path: string, body?: unknown, token = fx.admin.rest, headers?: Record<string, string>) {
      return api(server.url, path, { method: 'PUT', token, body, headers });
    }

    /** Adds one share class and returns its id. */
    async function shareClass(company: 'acme' | 'beta' | 'gamma', price: string, name = 'Preferred') {
      const res = await post(SHARE_CLASSES, {
        share_classes: [
          {
            company_id: fx.companies[company].id,
            financing_id: rounds[company],
            purchase_type: 'primary',
            type: 'preferred',
            name,
            price_per_share: usd(price),
          },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body[0].id as string;
    }

    describe('ids', () => {
      it('gives financings created through the API ids of the seeded form', async () => {
        const seeded = new IdGen('ids').next('fin');
        expect(seeded).to.match(idOf('fin'));
        for (const id of Object.values(rounds)) expect(id).to.match(idOf('fin'));
      });
    });

    describe('add_share_classes', () => {
      it('adds share classes with 201 as reference ShareClassOut items that get_share_classes reads back', async () => {
        const res = await post(SHARE_CLASSES, {
          share_classes: [
            {
              id: 'ignored',
              company_id: fx.companies.acme.id,
              financing_id: rounds.acme,
              purchase_type: 'primary',
              type: 'preferred',
              name: 'Series A Preferred',
              price_per_share: { value: 2.5, currency: 'USD' },
            },
            {
              company_id: fx.companies.acme.id,
              financing_id: rounds.acme,
              purchase_type: 'secondary',
              type: 'common',
              name: 'Common (secondary)',
              price_per_share: { value: '1.00', currency: 'EUR', fx_rate: '1.10' },
            },
          ],
        });
        expect(res.status).to.equal(201);
        assertReference('investment', 'ShareClassOut', ...res.body);
        const [preferred, common] = res.body;
        expect(preferred.id).to.match(idOf('shc'));
        expect(preferred.company_name).to.equal('Acme Analytics');
        expect(preferred.include_in_fair_value).to.equal(true);
        expect(preferred.price_per_share).to.include({
          value: '2.5',
          currency: 'USD',
          converted_value: '2.5',
        });
        expect(common.include_in_fair_value).to.equal(false);
        expect(common.price_per_share).to.deep.equal({
          value: '1.00',
          currency: 'EUR',
          converted_value: '1.10',
          converted_currency: 'USD',
          fx_rate: 1.1,
          is_custom_rate: true,
        });

        const read = await post(`${BETA}/share-classes/get/`, {
          share_class_ids: [preferred.id, common.id],
          include_fx_details: true,
        });
        expect(read.status).to.equal(200);
        expect(read.body).to.have.deep.members([preferred, common]);
        const history = await fx.repos.changeLog.of(fx.firmA.id, 'share_classes', preferred.id);
        expect(history.map((h) => [h.action, h.changed_by])).to.deep.equal([['create', fx.admin.user.id]]);
      });

      it('lists every offending field of every share class in one 400 and writes nothing', async () => {
        const before = await counts(t.db);
        const res = await post(SHARE_CLASSES, {
          share_classes: [
            {
              company_id: fx.companies.acme.id,
              financing_id: rounds.beta,
              purchase_type: 'tertiary',
              type: 'preferred',
              name: '',
              price_per_share: { value: 'cheap' },
            },
            {
              company_id: fx.companies.zeta.id,
              financing_id: rounds.zeta,
              purchase_type: 'primary',
              type: 'common',
              name: 'Theirs',
              price_per_share: { value: 1 },
            },
            { company_id: 'no-such-company' },
            {
              company_id: fx.companies.acme.id,
              financing_id: rounds.acme,
              purchase_type: 'primary',
              type: 'common',
              name: 'Valid',
              price_per_share: usd('1'),
            },
          ],
        });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(fields(res.body)).to.have.members([
          'share_classes[0].financing_id',
          'share_classes[0].purchase_type',
          'share_classes[0].name',
          'share_classes[0].price_per_share.value',
          'share_classes[0].price_per_share.currency',
          'share_classes[1].company_id',
          'share_classes[1].price_per_share.currency',
          'share_classes[2].company_id',
          'share_classes[2].financing_id',
          'share_classes[2].purchase_type',
          'share_classes[2].type',
          'share_classes[2].name',
          'share_classes[2].price_per_share',
        ]);
        expect(await counts(t.db)).to.deep.equal(before);
      });

      it('rejects an empty list and a missing one, naming share_classes', async () => {
        const empty = await post(SHARE_CLASSES, { share_classes: [] });
        expect(empty.status).to.equal(400);
        expect(fields(empty.body)).to.deep.equal(['share_classes']);
        const missing = await post(SHARE_CLASSES, {});
        expect(missing.status).to.equal(400);
        expect(missing.body.code).to.equal('missing_parameter');
        expect(fields(missing.body)).to.deep.equal(['share_classes']);
      });
    });

    describe('add_securities', () => {
      it('adds every kind of security with 201 MessagesResponse; get_securities reads each in its reference shape', async () => {
        const classId = await shareClass('acme', '2.00', 'Securities Preferred');
        const company_id = fx.companies.acme.id;
        const common = { company_id, fund_id: fx.fundA, issue_date: '2024-02-01', financing_id: rounds.acme };
        const res = await post(SECURITIES, {
          certificates: [
            {
              ...common,
              financing_id: null,
              investment_amount: usd('100000.00'),
              shares: 50000,
              share_class_id: classId,
            },
          ],
          warrants: [{ ...common, due_date: '2031-02-01', exercise_price: usd('2.00'), shares: '5000' }],
          convertibles: [
            {
              ...common,
              convertible_type: 'safe',
              discount: '0.20',
              valuation_cap: usd('10000000'),
              maturity_date: null,
              interest_rate: 0.05,
              days_convention: 365,
              investment_amount: usd('250000'),
            },
          ],
          token_investments: [
            {
              ...common,
              token: 'ACM',
              investment_amount: usd('5000'),
              quantity: '1000',
              price_per_token: usd('5'),
            },
          ],
          token_warrants: [
            {
              ...common,
              token: 'ACM',
              due_date: '2030-01-01',
              total_cost: usd('1000'),
              exercise_price: usd('1'),
              quantity: 1000,
            },
          ],
          token_convertibles: [{ ...common, token: null, purchase_amount: usd('20000') }],
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        assertReference('investment', 'MessagesResponse', res.body);
        expect(res.body.message).to.equal('Added 6 securities.');
        const ids = Object.values(res.body.ids as Record<string, string[]>).flat();
        expect(ids).to.have.length(6);
        for (const id of ids) expect(id).to.match(idOf('sec'));

        const read = await post(`${BETA}/securities/get/`, { security_ids: ids });
        expect(read.status).to.equal(200);
        expect(read.body).to.have.length(6);
        for (const s of read.body) assertReference('investment', SECURITY_SCHEMAS[s.type]!, s);
        const byType = Object.fromEntries(read.body.map((s: { type: string }) => [s.type, s]));
        expect(byType.certificate).to.include({
          shares: '50000',
          share_class_id: classId,
          share_class_name: 'Securities Preferred',
          financing_id: rounds.acme,
          fund_name: 'Alpha Fund I',
        });
        expect(byType.certificate.investment_amount.converted_value).to.equal('100000.00');
        expect(byType.warrant).to.include({ shares: '5000', total_cost: '10000.00', due_date: '2031-02-01' });
        expect(byType.convertible).to.include({
          convertible_type: 'safe',
          discount: '0.20',
          interest_rate: '0.05',
          days_convention: 365,
          maturity_date: null,
        });
        expect(byType.convertible.valuation_cap.value).to.equal('10000000');
        expect(byType.token_investment).to.include({ token: 'ACM', quantity: '1000' });
        expect(byType.token_warrant.total_cost.value).to.equal('1000');
        expect(byType.token_convertible).to.include({ token: null });
        expect(byType.token_convertible.purchase_amount.value).to.equal('20000');
        expect(await fx.repos.changeLog.of(fx.firmA.id, 'securities', ids[0]!)).to.have.length(1);
      });

      it('lists every offending field across the kinds in one 400 and writes nothing', async () => {
        const classId = await shareClass('beta', '1.00', 'Beta Class');
        const before = await counts(t.db);
        const company_id = fx.companies.acme.id;
        const res = await post(SECURITIES, {
          certificates: [
            {
              company_id,
              fund_id: fx.fundA,
              issue_date: '2024-02-01',
              investment_amount: usd('1'),
              shares: 1,
              share_class_id: classId,
              financing_id: null,
            },
          ],
          warrants: [
            {
              company_id,
              fund_id: fundB,
              issue_date: '2024-13-01',
              due_date: '2030-01-01',
              exercise_price: { value: '1' },
              shares: -1,
              financing_id: rounds.zeta,
            },
          ],
          convertibles: [
            {
              company_id: fx.companies.zeta.id,
              fund_id: fx.fundA,
              issue_date: '2024-01-01',
              convertible_type: 'bond',
              discount: '1.5',
              investment_amount: usd('1'),
              financing_id: rounds.zeta,
            },
          ],
          token_convertibles: [
            {
              company_id,
              fund_id: fx.fundA,
              issue_date: '2024-01-01',
              token: 'X',
              purchase_amount: usd('1'),
              financing_id: rounds.beta,
            },
          ],
        });
        expect(res.status).to.equal(400);
        expect(fields(res.body)).to.have.members([
          'certificates[0].share_class_id',
          'warrants[0].issue_date',
          'warrants[0].exercise_price.currency',
          'warrants[0].shares',
          'warrants[0].fund_id',
          'warrants[0].financing_id',
          'convertibles[0].convertible_type',
          'convertibles[0].discount',
          'convertibles[0].company_id',
          'token_convertibles[0].financing_id',
        ]);
        expect(await counts(t.db)).to.deep.equal(before);
      });

      it('rejects a body with no security at all, naming every list', async () => {
        const res = await post(SECURITIES, {});
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('missing_parameter');
        expect(fields(res.body)).to.deep.equal([
          'certificates',
          'warrants',
          'convertibles',
          'token_investments',
          'token_warrants',
          'token_convertibles',
        ]);
      });
    });

    describe('add_transactions', () => {
      it('records an exercise, a conversion and a sale with 201 reference Transactions, creating the certificates', async () => {
        const classId = await shareClass('beta', '1.00', 'Seed Preferred');
        const common = {
          company_id: fx.companies.beta.id,
          fund_id: fx.fundA,
          issue_date: '2023-06-01',
          financing_id: rounds.beta,
        };
        const held = await post(SECURITIES, {
          certificates: [
            { ...common, investment_amount: usd('30000.00'), shares: '30000', share_class_id: classId },
          ],
          warrants: [{ ...common, due_date: '2030-01-01', exercise_price: usd('0.50'), shares: '10000' }],
          convertibles: [
            {
              ...common,
              convertible_type: 'convertible_note',
              discount: '0.20',
              valuation_cap: usd('1000000'),
              investment_amount: usd('100000'),
            },
          ],
        });
        expect(held.status).to.equal(201);
        const [certificate] = held.body.ids.certificates;
        const [warrant] = held.body.ids.warrants;
        const [convertible] = held.body.ids.convertibles;
        const beta = fx.companies.beta.id;

        const res = await post(TRANSACTIONS, {
          exercises: [
            {
              company_id: beta,
              date: '2024-06-01',
              security_id: warrant,
              converted_to_share_class_id: classId,
            },
          ],
          conversions: [
            {
              company_id: beta,
              date: '2024-06-01',
              security_id: convertible,
              converted_to_share_class_id: classId,
            },
          ],
          sales: [
            {
              company_id: beta,
              date: '2025-01-01',
              security_id: certificate,
              cash_received: usd('25000.00'),
              shares_sold: 10000,
            },
          ],
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        assertReference('investment', 'Transaction', ...res.body);
        const [sale, conversion, exercise] = res.body;
        for (const tx of res.body) expect(tx.id).to.match(idOf('txn'));
        expect(sale).to.include({ event: 'sale', input_security_id: certificate, output_security_id: null });
        expect(sale.shares).to.equal('10000');
        expect(sale.proceeds.value).to.equal('25000.00');
        expect(sale.investment_amount.value).to.equal('10000.00');
        // The cap price (1,000,000 / 2,000,000 = 0.50) is below the discounted price (0.80).
        expect(conversion).to.include({
          event: 'conversion',
          input_security_id: convertible,
          shares: '200000',
        });
        expect(conversion.proceeds).to.equal(null);
        expect(exercise).to.include({ event: 'exercise', input_security_id: warrant, shares: '10000' });
        expect(exercise.investment_amount.value).to.equal('5000.00');

        const outputs = await post(`${BETA}/securities/get/`, {
          security_ids: [conversion.output_security_id, exercise.output_security_id],
        });
        expect(outputs.body).to.have.length(2);
        for (const s of outputs.body) {
          expect(s).to.include({ type: 'certificate', share_class_id: classId, fund_id: fx.fundA });
          expect(s.id).to.match(idOf('sec'));
        }
        const read = await post(`${BETA}/transactions/get/`, {
          transaction_ids: res.body.map((tx: { id: string }) => tx.id),
          include_fx_details: true,
        });
        expect(read.body).to.have.deep.members(res.body);

        // Exercised once, sold down to 20,000: both limits hold on the next request.
        const again = await post(TRANSACTIONS, {
          exercises: [
            {
              company_id: beta,
              date: '2024-07-01',
              security_id: warrant,
              converted_to_share_class_id: classId,
            },
          ],
          sales: [
            {
              company_id: beta,
              date: '2025-02-01',
              security_id: certificate,
              cash_received: usd('1'),
              shares_sold: '20001',
            },
            {
              company_id: beta,
              date: '2022-01-01',
              security_id: convertible,
              cash_received: usd('1'),
              shares_sold: '1',
            },
          ],
        });
        expect(again.status).to.equal(400);
        expect(fields(again.body)).to.have.members([
          'exercises[0].security_id',
          'sales[0].shares_sold',
          'sales[1].security_id',
        ]);
      });

      it('refuses securities and share classes of another company or firm, and unknown ids', async () => {
        const before = await counts(t.db);
        const acmeClass = await shareClass('acme', '1.00', 'Acme Only');
        const mid = await counts(t.db);
        const res = await post(TRANSACTIONS, {
          conversions: [
            {
              company_id: fx.companies.gamma.id,
              date: '2024-01-01',
              security_id: 'no-such-security',
              converted_to_share_class_id: acmeClass,
            },
            {
              company_id: fx.companies.zeta.id,
              date: '2024-01-01',
              security_id: 'x',
              converted_to_share_class_id: 'y',
            },
          ],
          sales: [{ company_id: fx.companies.gamma.id, date: 'soon', shares_sold: 0 }],
        });
        expect(res.status).to.equal(400);
        expect(fields(res.body)).to.have.members([
          'conversions[0].security_id',
          'conversions[0].converted_to_share_class_id',
          'conversions[1].company_id',
          'sales[0].date',
          'sales[0].security_id',
          'sales[0].cash_received',
          'sales[0].shares_sold',
        ]);
        expect(before.share_classes + 1).to.equal(mid.share_classes);
        expect(await counts(t.db)).to.deep.equal(mid);
      });
    });

    describe('upsert_overrides', () => {
      it('sets ownership, post-money valuation and fair value that get_investment_metrics reports from their date', async () => {
        const classId = await shareClass('gamma', '2.00', 'Gamma Preferred');
        const gamma = fx.companies.gamma.id;
        const added = await post(SECURITIES, {
          certificates: [
            {
              company_id: gamma,
              fund_id: fx.fundA,
              issue_date: '2024-03-01',
              investment_amount: usd('100000.00'),
              shares: '50000',
              share_class_id: classId,
              financing_id: rounds.gamma,
            },
          ],
        });
        expect(added.status).to.equal(201);
        const metrics = async (as_of_date: string) => {
          const res = await post(`${BETA}/metrics/get/`, { company_ids: [gamma], as_of_date });
          expect(res.status).to.equal(200);
          return res.body.metrics[0];
        };
        const plain = await metrics('2025-06-30');
        expect(plain).to.include({
          ownership: 0.05,
          post_money_valuation: '10000000',
          fair_value: '100000.00',
        });

        const body = {
          ownerships: [
            { date: '2025-01-01', company_id: gamma, fund_id: fx.fundA, ownership_percentage: '0.12' },
          ],
          post_money_valuations: [
            { date: '2025-01-01', company_id: gamma, post_money_valuation: usd('15000000') },
          ],
          fair_values: [
            { date: '2025-01-01', company_id: gamma, fund_id: fx.fundA, fair_value: usd(300000) },
          ],
        };
        const res = await put(OVERRIDES, body);
        expect(res.status).to.equal(200);
        assertReference('investment', 'MessagesResponse', res.body);
        const after = await metrics('2025-06-30');
        expect(after).to.include({ ownership: 0.12, post_money_valuation: '15000000', fair_value: '300000' });
        const earlier = await metrics('2024-12-31');
        expect(earlier).to.include({ ownership: 0.05, post_money_valuation: '10000000' });
        const stored = await t.db('ownership_overrides').where({ company_id: gamma });
        expect(stored.map((r: { id: string }) => r.id)[0]).to.match(idOf('own'));

        // The same dates again replace the figures instead of adding rows.
        const before = await counts(t.db);
        const replaced = await put(OVERRIDES, {
          ownerships: [{ ...body.ownerships[0], ownership_percentage: 0.2 }],
          post_money_valuations: [
            { ...body.post_money_valuations[0], post_money_valuation: usd('20000000') },
          ],
        });
        expect(replaced.status).to.equal(200);
        const now = await counts(t.db);
        expect(now.ownership_overrides).to.equal(before.ownership_overrides);
        expect(now.post_money_valuation_overrides).to.equal(before.post_money_valuation_overrides);
        expect(await metrics('2025-06-30')).to.include({ ownership: 0.2, post_money_valuation: '20000000' });
        const history = await fx.repos.changeLog.of(
          fx.firmA.id,
          'ownership_overrides',
          `${gamma}/${fx.fundA}/2025-01-01`,
        );
        expect(history).to.have.length(2);
      });

      it('names every offending override field in one 400 and sets nothing', async () => {
        const before = await counts(t.db);
        const res = await put(OVERRIDES, {
          ownerships: [
            {
              date: '2025-01-01',
              company_id: fx.companies.acme.id,
              fund_id: fundB,
              ownership_percentage: 1.5,
            },
          ],
          post_money_valuations: [{ date: 'yesterday', company_id: fx.companies.zeta.id }],
          fair_values: [
            {
              date: '2025-01-01',
              company_id: fx.companies.acme.id,
              fund_id: fx.fundA,
              fair_value: { value: null, currency: 'USD' },
            },
          ],
        });
        expect(res.status).to.equal(400);
        expect(fields(res.body)).to.have.members([
          'ownerships[0].fund_id',
          'ownerships[0].ownership_percentage',
          'post_money_valuations[0].date',
          'post_money_valuations[0].company_id',
          'post_money_valuations[0].post_money_valuation',
          'fair_values[0].fair_value.value',
        ]);
        expect(await counts(t.db)).to.deep.equal(before);
      });
    });

    describe('access and permissions', () => {
      it("refuses a company the caller cannot access exactly as another firm's: 404 naming company_id", async () => {
        const before = await counts(t.db);
        const item = (company: 'gamma' | 'zeta') => ({
          date: '2025-01-01',
          company_id: fx.companies[company].id,
          post_money_valuation: usd('1'),
        });
        const hidden = await put(OVERRIDES, { post_money_valuations: [item('gamma')] }, restricted);
        const foreign = await put(OVERRIDES, { post_money_valuations: [item('zeta')] }, restricted);
        expect(hidden.status).to.equal(404);
        expect(foreign.status).to.equal(404);
        expect(hidden.body.errors).to.deep.equal([
          {
            field: 'post_money_valuations[0].company_id',
            message: `no company with id ${fx.companies.gamma.id} that you can access; call list_companies or search_companies for valid ids`,
          },
        ]);
        expect(foreign.body.errors[0].message).to.equal(
          `no company with id ${fx.companies.zeta.id} that you can access; call list_companies or search_companies for valid ids`,
        );
        const allowed = await put(
          OVERRIDES,
          { post_money_valuations: [{ ...item('gamma'), company_id: fx.companies.acme.id }] },
          restricted,
        );
        expect(allowed.status).to.equal(200);
        expect((await counts(t.db)).post_money_valuation_overrides).to.equal(
          before.post_money_valuation_overrides + 1,
        );
      });

      it('answers 403 to a user without the cap-table permission on every write, writing nothing', async () => {
        const before = await counts(t.db);
        const acme = fx.companies.acme.id;
        const date = '2025-01-01';
        for (const [method, path, body] of [
          [
            'POST',
            SHARE_CLASSES,
            {
              share_classes: [
                {
                  company_id: acme,
                  financing_id: rounds.acme,
                  purchase_type: 'primary',
                  type: 'common',
                  name: 'Denied',
                  price_per_share: usd('1'),
                },
              ],
            },
          ],
          [
            'POST',
            SECURITIES,
            {
              token_convertibles: [
                {
                  company_id: acme,
                  fund_id: fx.fundA,
                  issue_date: date,
                  token: null,
                  purchase_amount: usd('1'),
                },
              ],
            },
          ],
          ['POST', TRANSACTIONS, { sales: [] }],
          [
            'PUT',
            OVERRIDES,
            { post_money_valuations: [{ date, company_id: acme, post_money_valuation: usd('1') }] },
          ],
        ] as const) {
          const res = await api(server.url, path, { method, token: fx.editor.rest, body });
          expect(res.status, path).to.equal(403);
          expect(res.body.code).to.equal('permission_denied');
        }
        expect(await counts(t.db)).to.deep.equal(before);
      });

      it('refuses every write tool to a read-only MCP sign-in with insufficient_scope', async () => {
        const readOnly = (await signInFlow(server.url, new WebClient(server.url), { scope: 'read' })).tokens
          .access_token;
        for (const name of ['add_share_classes', 'add_securities', 'add_transactions', 'upsert_overrides']) {
          const res = await api(server.url, '/mcp', {
            token: readOnly,
            method: 'POST',
            headers: { Accept: 'application/json, text/event-stream' },
            body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
          });
          expect(res.status, name).to.equal(403);
          expect(res.headers.get('www-authenticate')).to.include('error="insufficient_scope"');
        }
      });

      it('offers the writes over MCP as destructive tools that answer {count, results} or a message', async () => {
        const listed = await mcp.listTools();
        for (const name of ['add_share_classes', 'add_securities', 'add_transactions', 'upsert_overrides']) {
          const tool = listed.tools.find((x) => x.name === name);
          expect(tool?.annotations?.destructiveHint, name).to.equal(true);
          expect(tool?.annotations?.readOnlyHint, name).to.equal(false);
        }
        const res = await mcp.callTool({
          name: 'add_share_classes',
          arguments: {
            share_classes: [
              {
                company_id: fx.companies.acme.id,
                financing_id: rounds.acme,
                purchase_type: 'primary',
                type: 'common',
                name: 'Via MCP',
                price_per_share: usd('3'),
              },
            ],
          },
        });
        expect(res.isError).to.not.equal(true);
        const created = res.structuredContent as { count: number; results: unknown[] };
        expect(created.count).to.equal(1);
        assertReference('investment', 'ShareClassOut', ...created.results);
      });
    });

    describe('atomicity', () => {
      it('keeps none of a write when it fails inside its transaction', async () => {
        const before = await counts(t.db);
        const classId = `shc_${newId().slice(0, 12)}`;
        let error: unknown;
        try {
          await inTransaction(fx.repos, async (repos) => {
            await repos.capTable.addShareClasses(fx.firmA.id, [
              {
                id: classId,
                company_id: fx.companies.acme.id,
                financing_id: rounds.acme,
                purchase_type: 'primary',
                type: 'common',
                name: 'Rolled back',
                price_per_share: { value: '1', currency: 'USD', fx_rate: '1', is_custom_rate: false },
                include_in_fair_value: true,
                created_at: T0,
              },
            ]);
            await repos.capTable.addSecurities(fx.firmA.id, [
              {
                id: `sec_${newId().slice(0, 12)}`,
                company_id: fx.companies.acme.id,
                fund_id: fx.fundA,
                financing_id: rounds.acme,
                share_class_id: classId,
                type: 'certificate',
                issue_date: '2024-02-01',
                details: { shares: '1' },
                created_at: T0,
              },
            ]);
            await repos.changeLog.record({
              firmId: fx.firmA.id,
              entity: 'share_classes',
              entityId: classId,
              action: 'create',
              changedBy: fx.admin.user.id,
              changedAt: T0,
            });
            throw new Error('failed after the inserts');
          });
        } catch (err) {
          error = err;
        }
        expect((error as Error)?.message).to.equal('failed after the inserts');
        expect(await counts(t.db)).to.deep.equal(before);
      });
    });

    describe('Idempotency-Key', () => {
      it('replays the first answer of each write and writes nothing new on a retry', async () => {
        const classId = await shareClass('acme', '4.00', 'Idempotent Class');
        const acme = fx.companies.acme.id;
        const requests: [string, string, unknown][] = [
          [
            'POST',
            SHARE_CLASSES,
            {
              share_classes: [
                {
                  company_id: acme,
                  financing_id: rounds.acme,
                  purchase_type: 'primary',
                  type: 'common',
                  name: 'Once',
                  price_per_share: usd('1'),
                },
              ],
            },
          ],
          [
            'POST',
            SECURITIES,
            {
              certificates: [
                {
                  company_id: acme,
                  fund_id: fx.fundA,
                  issue_date: '2024-02-01',
                  investment_amount: usd('4000'),
                  shares: 1000,
                  share_class_id: classId,
                  financing_id: null,
                },
              ],
            },
          ],
          [
            'PUT',
            OVERRIDES,
            {
              fair_values: [
                { date: '2025-03-01', company_id: acme, fund_id: fx.fundA, fair_value: usd('1') },
              ],
            },
          ],
        ];
        for (const [i, [method, path, body]] of requests.entries()) {
          const headers = { 'Idempotency-Key': `investment-write-${dialect.name}-${i}` };
          const first = await api(server.url, path, { method, token: fx.admin.rest, body, headers });
          expect(first.status, path).to.be.oneOf([200, 201]);
          const before = await counts(t.db);
          const retry = await api(server.url, path, { method, token: fx.admin.rest, body, headers });
          expect(retry.status).to.equal(first.status);
          expect(retry.headers.get('idempotent-replayed')).to.equal('true');
          expect(retry.body).to.deep.equal(first.body);
          expect(await counts(t.db)).to.deep.equal(before);
        }

        // A sale retried with its key: one transaction, the same answer.
        const cert = await post(SECURITIES, {
          certificates: [
            {
              company_id: acme,
              fund_id: fx.fundA,
              issue_date: '2024-02-01',
              investment_amount: usd('4000'),
              shares: 1000,
              share_class_id: classId,
            },
          ],
        });
        const sale = {
          sales: [
            {
              company_id: acme,
              date: '2025-01-01',
              security_id: cert.body.ids.certificates[0],
              cash_received: usd('900'),
              shares_sold: 1000,
            },
          ],
        };
        const headers = { 'Idempotency-Key': `investment-sale-${dialect.name}` };
        const first = await post(TRANSACTIONS, sale, fx.admin.rest, headers);
        expect(first.status).to.equal(201);
        const before = await counts(t.db);
        const retry = await post(TRANSACTIONS, sale, fx.admin.rest, headers);
        expect(retry.status).to.equal(201);
        expect(retry.body).to.deep.equal(first.body);
        expect(await counts(t.db)).to.deep.equal(before);
      });
    });
  });
}
