import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { NewFinancing } from '../db/repos/cap-table.ts';
import { mcpTools } from '../mcp/server.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, EVERY_TOOLSET, startTestServer } from './helpers/server.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const EVENTS = '/beta/investment/financing-events/get/';
const SHARE_CLASSES = '/beta/investment/share-classes/get/';
const SECURITIES = '/beta/investment/securities/get/';
const TRANSACTIONS = '/beta/investment/transactions/get/';
const ADD = '/beta/investment/financing-rounds/add/';

const SECURITY_SCHEMAS: Record<string, string> = {
  certificate: 'CertificateOut',
  warrant: 'WarrantOut',
  public_equity: 'PublicEquityOut',
  token_investment: 'TokenInvestmentOut',
  token_warrant: 'TokenWarrantOut',
  token_convertible: 'TokenConvertibleOut',
  convertible: 'ConvertibleOut',
};

interface Ids {
  acmeSeed: string;
  acmeA: string;
  betaSeed: string;
  betaToken: string;
  gammaB: string;
  zetaSeed: string;
  fundB: string;
  acmeSeedClass: string;
  acmeAClass: string;
  betaSecondary: string;
  convertible: string;
  warrant: string;
  certificate: string;
  exercised: string;
  converted: string;
  betaCertificate: string;
}

function money(prefix: string, value: string | null, currency: string | null, fx: string | null = null) {
  return {
    [`${prefix}_value`]: value,
    [`${prefix}_currency`]: currency,
    [`${prefix}_fx_rate`]: fx,
    [`${prefix}_is_custom_rate`]: value === null ? null : fx !== null,
  };
}

const detailMoney = (value: string, currency: string) => ({
  value,
  currency,
  fx_rate: null,
  is_custom_rate: false,
});

/** A small cap table for firm A (USD) and one round of firm B, written straight into the tables. */
async function seedCapTable(db: Knex, fx: Fixture): Promise<Ids> {
  const A = fx.firmA.id;
  const ids: Ids = {
    acmeSeed: 'fin-acme-seed',
    acmeA: 'fin-acme-a',
    betaSeed: 'fin-beta-seed',
    betaToken: 'fin-beta-token',
    gammaB: 'fin-gamma-b',
    zetaSeed: 'fin-zeta-seed',
    fundB: 'fund-b',
    acmeSeedClass: 'shc-acme-seed',
    acmeAClass: 'shc-acme-a',
    betaSecondary: 'shc-beta-sec',
    convertible: 'sec-conv',
    warrant: 'sec-warrant',
    certificate: 'sec-cert',
    exercised: 'sec-exercised',
    converted: 'sec-converted',
    betaCertificate: 'sec-beta-cert',
  };
  await db('fx_rates').insert([
    { id: 'fx1', firm_id: A, from_currency: 'EUR', to_currency: 'USD', date: '2023-01-01', rate: '1.10' },
    { id: 'fx2', firm_id: A, from_currency: 'EUR', to_currency: 'USD', date: '2024-01-01', rate: '1.20' },
    { id: 'fx3', firm_id: A, from_currency: 'GBP', to_currency: 'USD', date: '2023-06-01', rate: '1.25' },
  ]);
  const round = (row: Record<string, unknown>) => ({
    firm_id: A,
    round_size_converted_value: null,
    fully_diluted_shares: null,
    is_crypto: false,
    liquidation_multiple: null,
    cap_multiple: null,
    seniority_position: null,
    participation_type: null,
    created_at: T0,
    ...money('pre_money', null, null),
    ...money('round_size', null, null),
    ...row,
  });
  await db('financings').insert([
    round({
      id: ids.acmeSeed,
      company_id: fx.companies.acme.id,
      name: 'Seed',
      closing_date: '2023-03-15',
      ...money('pre_money', '5000000.00', 'USD'),
      ...money('round_size', '1000000.00', 'USD'),
      fully_diluted_shares: '1000000',
      liquidation_multiple: '1.00',
      seniority_position: 'SENIOR_TO_ALL',
      participation_type: 'NON_PARTICIPATING',
    }),
    round({
      id: ids.acmeA,
      company_id: fx.companies.acme.id,
      name: 'Series A',
      closing_date: '2024-02-01',
      ...money('pre_money', '16000000.00', 'EUR'),
      ...money('round_size', '4000000.00', 'EUR'),
      seniority_position: 'PARI_PASSU',
      participation_type: 'CAPPED_PARTICIPATING',
      cap_multiple: '3.00',
    }),
    round({
      id: ids.betaSeed,
      company_id: fx.companies.beta.id,
      name: 'Seed',
      closing_date: '2023-07-01',
      ...money('round_size', '2000000.00', 'GBP'),
    }),
    round({
      id: ids.betaToken,
      company_id: fx.companies.beta.id,
      name: 'Token Sale',
      closing_date: '2024-05-01',
      is_crypto: true,
      ...money('round_size', '500000', 'JPY'),
    }),
    round({
      id: ids.gammaB,
      company_id: fx.companies.gamma.id,
      name: 'Series B',
      closing_date: '2024-03-01',
      ...money('round_size', '3000000.00', 'EUR', '1.05'),
    }),
    round({
      id: ids.zetaSeed,
      firm_id: fx.firmB.id,
      company_id: fx.companies.zeta.id,
      name: 'Zeta Seed',
      closing_date: '2023-01-01',
      ...money('round_size', '100000.00', 'EUR'),
    }),
  ]);
  const investor = (financing_id: string, name: string, is_lead: boolean, position: number) => ({
    id: `coi-${financing_id}-${position}`,
    financing_id,
    name,
    is_lead,
    position,
  });
  await db('financing_co_investors').insert([
    investor(ids.acmeSeed, 'Alpha Angels', true, 0),
    investor(ids.acmeSeed, 'Beta Ventures', false, 1),
    investor(ids.acmeA, 'Beta Ventures', true, 0),
    investor(ids.acmeA, 'Gamma Growth', false, 1),
    investor(ids.betaSeed, 'Alpha Angels', false, 0),
    investor(ids.zetaSeed, 'Alpha Angels', true, 0),
  ]);
  await db('financing_pari_passu').insert({
    financing_id: ids.acmeA,
    other_financing_id: ids.acmeSeed,
    position: 0,
  });

  const shareClass = (row: Record<string, unknown>) => ({
    firm_id: A,
    include_in_fair_value: true,
    created_at: T0,
    ...row,
  });
  await db('share_classes').insert([
    shareClass({
      id: ids.acmeSeedClass,
      company_id: fx.companies.acme.id,
      financing_id: ids.acmeSeed,
      purchase_type: 'primary',
      type: 'preferred',
      name: 'Seed Preferred',
      ...money('price_per_share', '5.00', 'USD'),
    }),
    shareClass({
      id: ids.acmeAClass,
      company_id: fx.companies.acme.id,
      financing_id: ids.acmeA,
      purchase_type: 'primary',
      type: 'preferred',
      name: 'Series A Preferred',
      ...money('price_per_share', '16.00', 'EUR'),
    }),
    shareClass({
      id: ids.betaSecondary,
      company_id: fx.companies.beta.id,
      financing_id: ids.betaSeed,
      purchase_type: 'secondary',
      type: 'common',
      name: 'Common (secondary)',
      include_in_fair_value: false,
      ...money('price_per_share', '1.50', 'GBP'),
    }),
    shareClass({
      id: 'shc-zeta',
      firm_id: fx.firmB.id,
      company_id: fx.companies.zeta.id,
      financing_id: ids.zetaSeed,
      purchase_type: 'primary',
      type: 'common',
      name: 'Zeta Common',
      ...money('price_per_share', '1.00', 'EUR'),
    }),
  ]);

  await db('funds').insert({
    id: ids.fundB,
    firm_id: A,
    name: 'Alpha Fund II',
    size: '50000000.00',
    vintage: 2023,
    currency: 'USD',
    created_at: T0,
  });
  await db('funds').insert({
    id: 'fund-zeta',
    firm_id: fx.firmB.id,
    name: 'Bravo Fund',
    size: '1000000.00',
    vintage: 2022,
    currency: 'EUR',
    created_at: T0,
  });
  const security = (row: Record<string, unknown>, details: Record<string, unknown>) => ({
    firm_id: A,
    company_id: fx.companies.acme.id,
    fund_id: fx.fundA,
    financing_id: null,
    share_class_id: null,
    created_at: T0,
    ...row,
    details: JSON.stringify(details),
  });
  await db('securities').insert([
    security(
      { id: ids.convertible, type: 'convertible', issue_date: '2022-06-01' },
      {
        convertible_type: 'safe',
        discount: '0.20',
        valuation_cap: detailMoney('8000000.00', 'EUR'),
        maturity_date: null,
        interest_rate: null,
        days_convention: null,
        investment_amount: detailMoney('250000.00', 'EUR'),
        accrued_interest: null,
      },
    ),
    security(
      {
        id: ids.certificate,
        type: 'certificate',
        issue_date: '2023-03-15',
        financing_id: ids.acmeSeed,
        share_class_id: ids.acmeSeedClass,
      },
      { investment_amount: detailMoney('500000.00', 'USD'), shares: '100000' },
    ),
    security(
      { id: ids.warrant, type: 'warrant', issue_date: '2023-03-15', financing_id: ids.acmeSeed },
      { due_date: '2030-03-15', exercise_price: detailMoney('5.00', 'USD'), shares: '10000' },
    ),
    security(
      {
        id: ids.converted,
        type: 'certificate',
        issue_date: '2024-02-01',
        financing_id: ids.acmeA,
        share_class_id: ids.acmeAClass,
      },
      { investment_amount: detailMoney('250000.00', 'EUR'), shares: 20000 },
    ),
    security(
      {
        id: ids.exercised,
        type: 'certificate',
        issue_date: '2024-06-01',
        financing_id: ids.acmeSeed,
        share_class_id: ids.acmeSeedClass,
      },
      { investment_amount: detailMoney('50000.00', 'USD'), shares: '10000' },
    ),
    security(
      { id: 'sec-public', type: 'public_equity', issue_date: '2024-07-01', fund_id: ids.fundB },
      {
        price_per_share: detailMoney('21.50', 'USD'),
        shares: '1000',
        investment_amount: detailMoney('21500.00', 'USD'),
      },
    ),
    security(
      {
        id: ids.betaCertificate,
        type: 'certificate',
        company_id: fx.companies.beta.id,
        issue_date: '2023-07-01',
        financing_id: ids.betaSeed,
        share_class_id: ids.betaSecondary,
      },
      { investment_amount: detailMoney('30000.00', 'GBP'), shares: '20000' },
    ),
    security(
      {
        id: 'sec-token-inv',
        type: 'token_investment',
        company_id: fx.companies.beta.id,
        issue_date: '2024-05-01',
        financing_id: ids.betaToken,
      },
      {
        token: 'BETA',
        investment_amount: detailMoney('100000', 'JPY'),
        quantity: '1000',
        price_per_token: detailMoney('100', 'JPY'),
      },
    ),
    security(
      {
        id: 'sec-token-warrant',
        type: 'token_warrant',
        company_id: fx.companies.beta.id,
        issue_date: '2024-05-01',
        financing_id: ids.betaToken,
      },
      {
        token: 'BETA',
        due_date: '2027-05-01',
        total_cost: detailMoney('5000.00', 'USD'),
        exercise_price: detailMoney('0.50', 'USD'),
        quantity: '10000',
      },
    ),
    security(
      {
        id: 'sec-token-conv',
        type: 'token_convertible',
        company_id: fx.companies.beta.id,
        issue_date: '2024-05-01',
        financing_id: ids.betaToken,
      },
      { token: null, purchase_amount: detailMoney('20000.00', 'USD') },
    ),
    security(
      {
        id: 'sec-zeta',
        type: 'certificate',
        firm_id: fx.firmB.id,
        company_id: fx.companies.zeta.id,
        fund_id: 'fund-zeta',
        issue_date: '2023-01-01',
        financing_id: ids.zetaSeed,
        share_class_id: 'shc-zeta',
      },
      { investment_amount: detailMoney('1000.00', 'EUR'), shares: '1000' },
    ),
  ]);

  const transaction = (row: Record<string, unknown>) => ({
    firm_id: A,
    company_id: fx.companies.acme.id,
    created_at: T0,
    ...money('investment_amount', null, null),
    ...money('proceeds', null, null),
    ...row,
  });
  await db('transactions').insert([
    transaction({
      id: 'txn-conversion',
      input_security_id: ids.convertible,
      output_security_id: ids.converted,
      date: '2024-02-01',
      event: 'conversion',
      shares: '20000',
      ...money('investment_amount', '250000.00', 'EUR'),
    }),
    transaction({
      id: 'txn-exercise',
      input_security_id: ids.warrant,
      output_security_id: ids.exercised,
      date: '2024-06-01',
      event: 'exercise',
      shares: '10000',
      ...money('investment_amount', '50000.00', 'USD'),
    }),
    transaction({
      id: 'txn-sale',
      company_id: fx.companies.beta.id,
      input_security_id: ids.betaCertificate,
      output_security_id: null,
      date: '2024-08-01',
      event: 'sale',
      shares: '20000',
      ...money('investment_amount', '30000.00', 'GBP'),
      ...money('proceeds', '90000.00', 'GBP'),
    }),
    transaction({
      id: 'txn-zeta',
      firm_id: fx.firmB.id,
      company_id: fx.companies.zeta.id,
      input_security_id: 'sec-zeta',
      output_security_id: null,
      date: '2024-01-01',
      event: 'sale',
      shares: '1000',
      ...money('investment_amount', '1000.00', 'EUR'),
    }),
  ]);
  return ids;
}

/** A valid round for firm A's Acme; tests override what they need. */
function validRound(fx: Fixture, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    company_id: fx.companies.acme.id,
    name: 'Series B',
    pre_money_valuation: { value: '40000000.00', currency: 'USD' },
    round_size: { value: 10000000, currency: 'EUR' },
    fully_diluted_shares: '3000000',
    closing_date: '2025-01-15',
    co_investors: [{ name: 'Delta Partners', is_lead: true }, { name: 'Echo Fund' }],
    ...extra,
  };
}

function names(items: { name: string; company_name: string }[]): string[] {
  return items.map((i) => `${i.company_name}/${i.name}`);
}

async function countFinancings(db: Knex): Promise<number> {
  const row = (await db('financings').count({ n: '*' }).first()) as { n: number | string };
  return Number(row.n);
}

for (const dialect of dialects) {
  describe(`cap table: beta reads and add_financing_rounds (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let ids: Ids;
    let server: RunningServer;
    let mcp: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      ids = await seedCapTable(t.db, fx);
      server = await startTestServer(t.db, { env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET } });
      mcp = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    const post = (path: string, body?: unknown, token = fx.admin.rest) =>
      api(server.url, path, { method: 'POST', token, body });

    describe('get_financing_events', () => {
      it('returns every visible round by closing date as a bare array of reference FinancingOut items', async () => {
        const res = await post(EVENTS);
        expect(res.status).to.equal(200);
        expect(res.body).to.be.an('array');
        expect(names(res.body)).to.deep.equal([
          'Acme Analytics/Seed',
          'Beta Bio/Seed',
          'Acme Analytics/Series A',
          'Gamma Grid/Series B',
          'Beta Bio/Token Sale',
        ]);
        assertReference('investment', 'FinancingOut', ...res.body);
        const seriesA = res.body[2];
        expect(seriesA.id).to.equal(ids.acmeA);
        expect(seriesA.company_id).to.equal(fx.companies.acme.id);
        expect(seriesA.co_investors).to.deep.equal([
          { name: 'Beta Ventures', is_lead: true },
          { name: 'Gamma Growth', is_lead: false },
        ]);
        expect(seriesA.pari_passu_rounds).to.deep.equal([{ id: ids.acmeSeed, name: 'Seed' }]);
        expect(seriesA.seniority_position).to.equal('PARI_PASSU');
        expect(seriesA.cap_multiple).to.equal('3.00');
        expect(res.body[0].pari_passu_rounds).to.equal(null);
        expect(res.body[0].fully_diluted_shares).to.equal('1000000');
        expect(res.body[3].pre_money_valuation).to.equal(null);
      });

      it('treats a null body, an empty object and an empty body alike', async () => {
        const empty = await post(EVENTS, {});
        const none = await api(server.url, EVENTS, { method: 'POST', token: fx.admin.rest });
        const nullBody = await api(server.url, EVENTS, {
          method: 'POST',
          token: fx.admin.rest,
          body: null,
        });
        expect(empty.status).to.equal(200);
        expect(none.status).to.equal(200);
        expect(nullBody.status).to.equal(200);
        expect(none.body).to.deep.equal(empty.body);
        expect(nullBody.body).to.deep.equal(empty.body);
        expect(empty.body).to.have.length(5);
      });

      it('rejects an unknown body field with 400 naming it', async () => {
        const res = await post(EVENTS, { company_id: fx.companies.acme.id });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['company_id']);
      });

      it('rejects a body that is not a JSON object', async () => {
        const res = await post(EVENTS, ['a']);
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(res.body.errors[0].field).to.equal('body');
        const text = await post(EVENTS, 'filters');
        expect(text.status).to.equal(400);
        expect(text.body.errors[0].field).to.equal('body');
      });

      it('rejects an unknown sort_by with 400 naming sort_by', async () => {
        const res = await post(EVENTS, { sort_by: 'name' });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        expect(res.body.errors[0].field).to.equal('sort_by');
      });

      it('gives each round its post-money (reported, else pre-money plus round size) and lead investor, sortable by both', async () => {
        const all = (await post(EVENTS, {})).body as (Record<string, unknown> & {
          id: string;
          company_id: string;
          closing_date: string;
          pre_money_valuation: { value: string; currency: string } | null;
          round_size: { value: string; currency: string } | null;
          co_investors: { name: string; is_lead: boolean }[];
          post_money_valuation: { value: string; converted_value: string | null } | null;
          post_money_source: string | null;
          lead_investor: string | null;
        })[];
        assertReference('investment', 'FinancingOut', ...all);
        for (const r of all) {
          const leads = r.co_investors.filter((c) => c.is_lead).map((c) => c.name);
          expect(r.lead_investor).to.equal(leads.length ? leads.join(', ') : null);
          const pre = r.pre_money_valuation;
          const size = r.round_size;
          if (pre?.value && size?.value && pre.currency === size.currency) {
            expect(r.post_money_source).to.equal('pre_money_plus_round');
            expect(Number(r.post_money_valuation!.value)).to.equal(Number(pre.value) + Number(size.value));
          } else expect(r.post_money_source).to.equal(null);
        }
        // A post-money override dated on the closing date is the reported one.
        const round = all.find((r) => r.post_money_source !== null)!;
        const put = await api(server.url, '/beta/investment/overrides/upsert/', {
          method: 'PUT',
          token: fx.admin.rest,
          body: {
            post_money_valuations: [
              {
                date: round.closing_date,
                company_id: round.company_id,
                post_money_valuation: { value: '123456789', currency: 'USD' },
              },
            ],
          },
        });
        expect(put.status, JSON.stringify(put.body)).to.equal(200);
        const after = (await post(EVENTS, { financing_ids: [round.id] })).body[0];
        expect(after).to.include({ post_money_source: 'reported' });
        expect(after.post_money_valuation.value).to.equal('123456789');
        const sorted = (await post(EVENTS, { sort_by: '-post_money_valuation' })).body as typeof all;
        const values = sorted
          .map((r) => r.post_money_valuation?.converted_value)
          .filter((v): v is string => v !== null && v !== undefined)
          .map(Number);
        expect(values[0]).to.equal(123456789);
        expect(values).to.deep.equal([...values].sort((a, b) => b - a));
        expect(sorted.at(-1)!.post_money_valuation).to.equal(null);
        const byLead = (await post(EVENTS, { sort_by: 'lead_investor' })).body as typeof all;
        const leads = byLead.map((r) => r.lead_investor).filter((l): l is string => l !== null);
        expect(leads).to.deep.equal(
          [...leads].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
        );
        expect(byLead.at(-1)!.lead_investor).to.equal(null);
        await t.db('post_money_valuation_overrides').delete();
      });

      it('filters by company_ids, financing_ids and is_crypto; empty or null lists do not filter', async () => {
        const byCompany = await post(EVENTS, { company_ids: [fx.companies.beta.id] });
        expect(names(byCompany.body)).to.deep.equal(['Beta Bio/Seed', 'Beta Bio/Token Sale']);
        const byId = await post(EVENTS, { financing_ids: [ids.gammaB, ids.acmeSeed, 'unknown'] });
        expect(byId.body.map((f: { id: string }) => f.id)).to.deep.equal([ids.acmeSeed, ids.gammaB]);
        const crypto = await post(EVENTS, { is_crypto: true });
        expect(names(crypto.body)).to.deep.equal(['Beta Bio/Token Sale']);
        const notCrypto = await post(EVENTS, { is_crypto: false });
        expect(notCrypto.body).to.have.length(4);
        const emptyList = await post(EVENTS, { company_ids: [], financing_ids: null, is_crypto: null });
        expect(emptyList.body).to.have.length(5);
      });

      it('filters by co-investor name (case-insensitive, whole name) and role', async () => {
        const any = await post(EVENTS, { co_investors: [{ name: 'alpha angels' }] });
        expect(names(any.body)).to.deep.equal(['Acme Analytics/Seed', 'Beta Bio/Seed']);
        const lead = await post(EVENTS, { co_investors: [{ name: 'ALPHA ANGELS', role: 'lead' }] });
        expect(names(lead.body)).to.deep.equal(['Acme Analytics/Seed']);
        const co = await post(EVENTS, { co_investors: [{ name: 'Alpha Angels', role: 'co' }] });
        expect(names(co.body)).to.deep.equal(['Beta Bio/Seed']);
        const partial = await post(EVENTS, { co_investors: [{ name: 'Alpha' }] });
        expect(partial.body).to.deep.equal([]);
        const both = await post(EVENTS, {
          co_investors: [{ name: 'Beta Ventures' }, { name: 'Gamma Growth', role: 'co' }],
        });
        expect(names(both.body)).to.deep.equal(['Acme Analytics/Series A']);
        const badRole = await post(EVENTS, { co_investors: [{ name: 'x', role: 'boss' }] });
        expect(badRole.status).to.equal(400);
        expect(badRole.body.errors[0].field).to.equal('co_investors[0].role');
      });

      it('sorts by closing_date and by converted round_size in both directions, unknown sizes last', async () => {
        const order = async (sort_by: string) =>
          ((await post(EVENTS, { sort_by })).body as { id: string }[]).map((f) => f.id);
        const ascending = [ids.acmeSeed, ids.betaSeed, ids.acmeA, ids.gammaB, ids.betaToken];
        expect(await order('closing_date')).to.deep.equal(ascending);
        expect(await order('+closing_date')).to.deep.equal(ascending);
        expect(await order('-closing_date')).to.deep.equal([...ascending].reverse());
        // USD 1,000,000 < GBP 2,000,000 (2,500,000) < EUR 3,000,000 at 1.05 (3,150,000) < EUR 4,000,000 (4,800,000); JPY has no rate.
        expect(await order('round_size')).to.deep.equal([
          ids.acmeSeed,
          ids.betaSeed,
          ids.gammaB,
          ids.acmeA,
          ids.betaToken,
        ]);
        expect(await order('-round_size')).to.deep.equal([
          ids.acmeA,
          ids.gammaB,
          ids.betaSeed,
          ids.acmeSeed,
          ids.betaToken,
        ]);
      });

      it('converts money into the firm currency and shows rates only with include_fx_details', async () => {
        const plain = await post(EVENTS, {
          financing_ids: [ids.acmeA, ids.gammaB, ids.betaToken, ids.acmeSeed],
        });
        const [seed, seriesA, seriesB, token] = plain.body;
        expect(seriesA.round_size).to.deep.equal({
          value: '4000000.00',
          currency: 'EUR',
          converted_value: '4800000.00',
          converted_currency: 'USD',
        });
        expect(seriesA.pre_money_valuation.converted_value).to.equal('19200000.00');
        expect(seed.round_size).to.deep.equal({
          value: '1000000.00',
          currency: 'USD',
          converted_value: '1000000.00',
          converted_currency: 'USD',
        });
        expect(seriesB.round_size.converted_value).to.equal('3150000.00');
        expect(token.round_size).to.deep.equal({
          value: '500000',
          currency: 'JPY',
          converted_value: null,
          converted_currency: 'USD',
        });

        const detailed = await post(EVENTS, {
          financing_ids: [ids.acmeA, ids.gammaB, ids.betaToken, ids.acmeSeed],
          include_fx_details: true,
        });
        assertReference('investment', 'FinancingOut', ...detailed.body);
        const [dSeed, dA, dB, dToken] = detailed.body;
        expect(dA.round_size).to.deep.equal({
          value: '4000000.00',
          currency: 'EUR',
          converted_value: '4800000.00',
          converted_currency: 'USD',
          fx_rate: 1.2,
          is_custom_rate: false,
        });
        expect(dSeed.round_size.fx_rate).to.equal(1);
        expect(dB.round_size.fx_rate).to.equal(1.05);
        expect(dB.round_size.is_custom_rate).to.equal(true);
        expect(dToken.round_size.fx_rate).to.equal(null);
        expect(dToken.round_size.converted_value).to.equal(null);
      });

      it('uses the latest rate on or before the closing date', async () => {
        const res = await post(EVENTS, { financing_ids: [ids.betaSeed], include_fx_details: true });
        expect(res.body[0].round_size.fx_rate).to.equal(1.25);
        expect(res.body[0].round_size.converted_value).to.equal('2500000.00');
      });

      it('shows a restricted user only their companies; an invisible company id yields no rows', async () => {
        const all = await post(EVENTS, undefined, fx.restricted.rest);
        expect(names(all.body)).to.deep.equal(['Acme Analytics/Seed', 'Acme Analytics/Series A']);
        const hidden = await post(EVENTS, { company_ids: [fx.companies.beta.id] }, fx.restricted.rest);
        expect(hidden.status).to.equal(200);
        expect(hidden.body).to.deep.equal([]);
      });

      it('never shows another firm rounds, even by id', async () => {
        const other = await post(EVENTS, undefined, fx.other.rest);
        expect(names(other.body)).to.deep.equal(['Zeta Zero/Zeta Seed']);
        assertReference('investment', 'FinancingOut', ...other.body);
        const byId = await post(EVENTS, {
          financing_ids: [ids.zetaSeed],
          company_ids: [fx.companies.zeta.id],
        });
        expect(byId.body).to.deep.equal([]);
      });

      it('answers the MCP tool with {count, results} equal to the REST array', async () => {
        const res = await mcp.callTool({
          name: 'get_financing_events',
          arguments: {
            company_ids: [fx.companies.acme.id],
            sort_by: '-closing_date',
            response_format: 'detailed',
          },
        });
        expect(res.isError).to.not.equal(true);
        const structured = res.structuredContent as { count: number; results: { id: string }[] };
        expect(structured.count).to.equal(2);
        const rest = await post(EVENTS, { company_ids: [fx.companies.acme.id], sort_by: '-closing_date' });
        expect(structured.results).to.deep.equal(rest.body);
      });
    });

    describe('get_share_classes', () => {
      it('returns reference ShareClassOut items priced at their round closing date', async () => {
        const res = await post(SHARE_CLASSES, { include_fx_details: true });
        expect(res.status).to.equal(200);
        assertReference('investment', 'ShareClassOut', ...res.body);
        expect(res.body.map((s: { id: string }) => s.id)).to.deep.equal([
          ids.acmeSeedClass,
          ids.betaSecondary,
          ids.acmeAClass,
        ]);
        const seriesA = res.body[2];
        expect(seriesA.financing_id).to.equal(ids.acmeA);
        expect(seriesA.company_name).to.equal('Acme Analytics');
        expect(seriesA.price_per_share).to.deep.equal({
          value: '16.00',
          currency: 'EUR',
          converted_value: '19.20',
          converted_currency: 'USD',
          fx_rate: 1.2,
          is_custom_rate: false,
        });
        expect(res.body[1].include_in_fair_value).to.equal(false);
      });

      it('filters by purchase_type, share_class_ids and company_ids', async () => {
        const secondary = await post(SHARE_CLASSES, { purchase_type: 'secondary' });
        expect(secondary.body.map((s: { id: string }) => s.id)).to.deep.equal([ids.betaSecondary]);
        expect(secondary.body[0]).to.not.have.property('price_per_share.fx_rate');
        expect(secondary.body[0].price_per_share).to.not.have.property('fx_rate');
        const byId = await post(SHARE_CLASSES, { share_class_ids: [ids.acmeAClass, 'shc-zeta'] });
        expect(byId.body.map((s: { id: string }) => s.id)).to.deep.equal([ids.acmeAClass]);
        const byCompany = await post(SHARE_CLASSES, { company_ids: [fx.companies.acme.id] });
        expect(byCompany.body).to.have.length(2);
        const bad = await post(SHARE_CLASSES, { purchase_type: 'tertiary' });
        expect(bad.status).to.equal(400);
        expect(bad.body.errors[0].field).to.equal('purchase_type');
      });
    });

    describe('get_securities', () => {
      it('returns each security in its kind reference shape with a type discriminator', async () => {
        const res = await post(SECURITIES, { include_fx_details: true });
        expect(res.status).to.equal(200);
        const kinds = new Set<string>();
        for (const item of res.body as { type: string }[]) {
          kinds.add(item.type);
          assertReference('investment', SECURITY_SCHEMAS[item.type]!, item);
        }
        expect([...kinds].sort()).to.deep.equal(Object.keys(SECURITY_SCHEMAS).sort());
        expect(res.body.map((s: { id: string }) => s.id)).to.not.include('sec-zeta');
        const convertible = res.body.find((s: { id: string }) => s.id === ids.convertible);
        // Issued 2022-06-01, before the first EUR rate: not converted.
        expect(convertible.investment_amount.converted_value).to.equal(null);
        expect(convertible.convertible_type).to.equal('safe');
        const certificate = res.body.find((s: { id: string }) => s.id === ids.certificate);
        expect(certificate.share_class_name).to.equal('Seed Preferred');
        expect(certificate.fund_name).to.equal('Alpha Fund I');
        const converted = res.body.find((s: { id: string }) => s.id === ids.converted);
        expect(converted.shares).to.equal('20000');
        expect(converted.investment_amount.converted_value).to.equal('300000.00');
        const warrant = res.body.find((s: { id: string }) => s.id === ids.warrant);
        expect(warrant.total_cost).to.equal('50000.00');
      });

      it('answers the MCP get_securities, get_share_classes and get_transactions tools like REST', async () => {
        for (const [name, path] of [
          ['get_securities', SECURITIES],
          ['get_share_classes', SHARE_CLASSES],
          ['get_transactions', TRANSACTIONS],
        ] as const) {
          const res = await mcp.callTool({
            name,
            arguments: { include_fx_details: true, response_format: 'detailed' },
          });
          expect(res.isError, name).to.not.equal(true);
          const rest = await post(path, { include_fx_details: true });
          expect(res.structuredContent, name).to.deep.equal({
            count: rest.body.length,
            page: 1,
            per_page: rest.body.length,
            has_more: false,
            results: rest.body,
          });
        }
      });

      it('filters by fund_id, security_ids and company_ids', async () => {
        const byFund = await post(SECURITIES, { fund_id: ids.fundB });
        expect(byFund.body.map((s: { id: string }) => s.id)).to.deep.equal(['sec-public']);
        const byId = await post(SECURITIES, { security_ids: [ids.warrant, 'sec-zeta'] });
        expect(byId.body.map((s: { id: string }) => s.id)).to.deep.equal([ids.warrant]);
        const beta = await post(SECURITIES, { company_ids: [fx.companies.beta.id] });
        expect(
          beta.body.every((s: { company_id: string }) => s.company_id === fx.companies.beta.id),
        ).to.equal(true);
        expect(beta.body).to.have.length(4);
      });
    });

    describe('get_transactions', () => {
      it('returns reference Transaction items by date', async () => {
        const res = await post(TRANSACTIONS, { include_fx_details: true });
        expect(res.status).to.equal(200);
        assertReference('investment', 'Transaction', ...res.body);
        expect(res.body.map((x: { id: string }) => x.id)).to.deep.equal([
          'txn-conversion',
          'txn-exercise',
          'txn-sale',
        ]);
        const sale = res.body[2];
        expect(sale.proceeds).to.deep.equal({
          value: '90000.00',
          currency: 'GBP',
          converted_value: '112500.00',
          converted_currency: 'USD',
          fx_rate: 1.25,
          is_custom_rate: false,
        });
        expect(res.body[0].proceeds).to.equal(null);
      });

      it('filters by event and by input or output security', async () => {
        const sales = await post(TRANSACTIONS, { event: 'sale' });
        expect(sales.body.map((x: { id: string }) => x.id)).to.deep.equal(['txn-sale']);
        const byInput = await post(TRANSACTIONS, { input_security_id: ids.warrant });
        expect(byInput.body.map((x: { id: string }) => x.id)).to.deep.equal(['txn-exercise']);
        const byOutput = await post(TRANSACTIONS, { output_security_id: ids.converted });
        expect(byOutput.body.map((x: { id: string }) => x.id)).to.deep.equal(['txn-conversion']);
        const byIds = await post(TRANSACTIONS, { transaction_ids: ['txn-zeta', 'txn-sale'] });
        expect(byIds.body.map((x: { id: string }) => x.id)).to.deep.equal(['txn-sale']);
        const bad = await post(TRANSACTIONS, { event: 'gift' });
        expect(bad.status).to.equal(400);
        expect(bad.body.errors[0].field).to.equal('event');
      });
    });

    describe('add_financing_rounds', () => {
      it('adds rounds in request order with 201, resolved pari passu rounds and converted money', async () => {
        const before = await countFinancings(t.db);
        const res = await post(ADD, {
          financing_rounds: [
            validRound(fx, {
              id: 'ignored-id',
              seniority_position: 'PARI_PASSU',
              pari_passu_rounds: [ids.acmeSeed, ids.acmeA, ids.acmeSeed],
              participation_type: 'CAPPED_PARTICIPATING',
              cap_multiple: 2.5,
              liquidation_multiple: '1.50',
            }),
            validRound(fx, {
              company_id: fx.companies.gamma.id,
              name: 'Bridge',
              pre_money_valuation: null,
              round_size: { value: '750000.125', currency: 'GBP', fx_rate: '1.3' },
              fully_diluted_shares: null,
              co_investors: [],
              is_crypto: true,
              closing_date: '2023-01-01',
            }),
          ],
        });
        expect(res.status).to.equal(201);
        expect(res.body).to.be.an('array').with.length(2);
        assertReference('investment', 'FinancingOut', ...res.body);
        const [b, bridge] = res.body;
        expect(b.id).to.be.a('string').and.not.equal('ignored-id');
        expect(b.company_name).to.equal('Acme Analytics');
        expect(b.name).to.equal('Series B');
        expect(b.pari_passu_rounds).to.deep.equal([
          { id: ids.acmeSeed, name: 'Seed' },
          { id: ids.acmeA, name: 'Series A' },
        ]);
        expect(b.cap_multiple).to.equal('2.5');
        expect(b.liquidation_multiple).to.equal('1.50');
        expect(b.fully_diluted_shares).to.equal('3000000');
        expect(b.co_investors).to.deep.equal([
          { name: 'Delta Partners', is_lead: true },
          { name: 'Echo Fund', is_lead: false },
        ]);
        expect(b.round_size).to.deep.equal({
          value: '10000000',
          currency: 'EUR',
          converted_value: '12000000',
          converted_currency: 'USD',
          fx_rate: 1.2,
          is_custom_rate: false,
        });
        expect(b.pre_money_valuation.converted_value).to.equal('40000000.00');
        expect(bridge.company_name).to.equal('Gamma Grid');
        expect(bridge.pre_money_valuation).to.equal(null);
        expect(bridge.is_crypto).to.equal(true);
        expect(bridge.pari_passu_rounds).to.equal(null);
        expect(bridge.round_size).to.deep.equal({
          value: '750000.125',
          currency: 'GBP',
          converted_value: '975000.1625',
          converted_currency: 'USD',
          fx_rate: 1.3,
          is_custom_rate: true,
        });
        expect(await countFinancings(t.db)).to.equal(before + 2);
        const stored = await t.db('financings').where({ id: bridge.id }).first();
        expect(stored.round_size_converted_value).to.equal('975000.1625');

        // The new rounds are read back by get_financing_events over REST and MCP.
        const rest = await post(EVENTS, { financing_ids: [b.id, bridge.id], include_fx_details: true });
        // The read adds what it derives (post-money, lead investor) to what the write stored.
        const asWritten = (f: Record<string, unknown>) => {
          const { post_money_valuation: _p, post_money_source: _s, lead_investor: _l, ...rest } = f;
          return rest;
        };
        expect(rest.body.map(asWritten)).to.deep.equal([bridge, b]);
        const viaMcp = await mcp.callTool({
          name: 'get_financing_events',
          arguments: { financing_ids: [b.id], include_fx_details: true, response_format: 'detailed' },
        });
        expect(
          (viaMcp.structuredContent as { results: Record<string, unknown>[] }).results.map(asWritten),
        ).to.deep.equal([b]);
        await t.db('financings').whereIn('id', [b.id, bridge.id]).delete();
      });

      it('adds rounds through the MCP tool with {count, results}', async () => {
        const res = await mcp.callTool({
          name: 'add_financing_rounds',
          arguments: { financing_rounds: [validRound(fx, { name: 'Via MCP' })] },
        });
        expect(res.isError).to.not.equal(true);
        const created = res.structuredContent as { count: number; results: { id: string; name: string }[] };
        expect(created.count).to.equal(1);
        expect(created.results[0]!.name).to.equal('Via MCP');
        assertReference('investment', 'FinancingOut', ...created.results);
        await t.db('financings').where({ id: created.results[0]!.id }).delete();
      });

      it('keeps number and string values as exact decimal strings', async () => {
        const res = await post(ADD, {
          financing_rounds: [
            validRound(fx, {
              pre_money_valuation: { value: 1e21, currency: 'USD' },
              round_size: { value: '+0012.50', currency: 'USD' },
              fully_diluted_shares: 0.1,
            }),
          ],
        });
        expect(res.status).to.equal(201);
        expect(res.body[0].pre_money_valuation.value).to.equal('1000000000000000000000');
        expect(res.body[0].round_size.value).to.equal('12.50');
        expect(res.body[0].fully_diluted_shares).to.equal('0.1');
        await t.db('financings').where({ id: res.body[0].id }).delete();
      });

      it('rejects 0 and 101 rounds, and a missing list, naming financing_rounds', async () => {
        const none = await post(ADD, { financing_rounds: [] });
        expect(none.status).to.equal(400);
        expect(none.body.code).to.equal('invalid_parameter');
        expect(none.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['financing_rounds']);
        const many = await post(ADD, { financing_rounds: Array.from({ length: 101 }, () => validRound(fx)) });
        expect(many.status).to.equal(400);
        expect(many.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['financing_rounds']);
        const missing = await post(ADD, {});
        expect(missing.status).to.equal(400);
        expect(missing.body.code).to.equal('missing_parameter');
        expect(missing.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([
          'financing_rounds',
        ]);
      });

      it('accepts exactly 100 rounds', async () => {
        const res = await post(ADD, {
          financing_rounds: Array.from({ length: 100 }, (_, i) => validRound(fx, { name: `Round ${i}` })),
        });
        expect(res.status).to.equal(201);
        expect(res.body.map((f: { name: string }) => f.name)).to.deep.equal(
          Array.from({ length: 100 }, (_, i) => `Round ${i}`),
        );
        await t
          .db('financings')
          .whereIn(
            'id',
            res.body.map((f: { id: string }) => f.id),
          )
          .delete();
      });

      it('lists every offending field of every round in one 400 and writes nothing', async () => {
        const before = await countFinancings(t.db);
        const res = await post(ADD, {
          financing_rounds: [
            validRound(fx, {
              company_id: fx.companies.zeta.id,
              round_size: { value: 'lots', currency: 'EUR' },
            }),
            validRound(fx, { cap_multiple: '2.00' }),
            validRound(fx, { participation_type: 'CAPPED_PARTICIPATING' }),
            validRound(fx, { pari_passu_rounds: [ids.acmeSeed], seniority_position: 'SENIOR_TO_ALL' }),
            validRound(fx, { seniority_position: 'PARI_PASSU', pari_passu_rounds: [ids.betaSeed, 'nope'] }),
            validRound(fx, { fully_diluted_shares: -1, liquidation_multiple: '-0.5', cap_multiple: null }),
            validRound(fx, {
              round_size: { value: 100 },
              pre_money_valuation: { value: '1', currency: 'XXX' },
            }),
            validRound(fx, { closing_date: '2025-13-01', name: '', seniority_position: 'FIRST' }),
            validRound(fx, { company_id: 'no-such-company', co_investors: [{ is_lead: true }] }),
            validRound(fx, { pre_money_valuation: { value: 1, currency: 'USD', fx_rate: '2' } }),
            validRound(fx, { round_size: { value: 1, currency: 'EUR', fx_rate: 0 } }),
            { name: 'Only a name' },
          ],
        });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('invalid_parameter');
        const fields = (res.body.errors as { field: string }[]).map((e) => e.field);
        expect(fields).to.have.members([
          'financing_rounds[0].round_size.value',
          'financing_rounds[0].company_id',
          'financing_rounds[1].cap_multiple',
          'financing_rounds[2].cap_multiple',
          'financing_rounds[3].pari_passu_rounds',
          'financing_rounds[4].pari_passu_rounds',
          'financing_rounds[5].fully_diluted_shares',
          'financing_rounds[5].liquidation_multiple',
          'financing_rounds[6].round_size.currency',
          'financing_rounds[6].pre_money_valuation.currency',
          'financing_rounds[7].closing_date',
          'financing_rounds[7].name',
          'financing_rounds[7].seniority_position',
          'financing_rounds[8].company_id',
          'financing_rounds[8].co_investors[0].name',
          'financing_rounds[9].pre_money_valuation.fx_rate',
          'financing_rounds[10].round_size.fx_rate',
          'financing_rounds[11].company_id',
          'financing_rounds[11].pre_money_valuation',
          'financing_rounds[11].round_size',
          'financing_rounds[11].fully_diluted_shares',
          'financing_rounds[11].closing_date',
          'financing_rounds[11].co_investors',
        ]);
        const pariPassu = res.body.errors.find(
          (e: { field: string }) => e.field === 'financing_rounds[4].pari_passu_rounds',
        );
        expect(pariPassu.message).to.match(new RegExp(`${ids.betaSeed}, nope`));
        expect(res.body.detail).to.match(/financing_rounds\[0\]\.company_id/);
        expect(await countFinancings(t.db)).to.equal(before);
      });

      it("answers another firm's company id with 404 naming that field, as reads do", async () => {
        const res = await post(ADD, {
          financing_rounds: [validRound(fx), validRound(fx, { company_id: fx.companies.zeta.id })],
        });
        expect(res.status).to.equal(404);
        expect(res.body.code).to.equal('not_found');
        expect(res.body.errors).to.deep.equal([
          {
            field: 'financing_rounds[1].company_id',
            message: `no company with id ${fx.companies.zeta.id} that you can access; call list_companies or search_companies for valid ids`,
          },
        ]);
      });

      it('answers 403 to a user without the cap-table permission', async () => {
        const before = await countFinancings(t.db);
        const res = await post(ADD, { financing_rounds: [validRound(fx)] }, fx.editor.rest);
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('permission_denied');
        const viaMcp = await mcpClient(server.url, fx.editor.pat);
        try {
          const denied = await viaMcp.callTool({
            name: 'add_financing_rounds',
            arguments: { financing_rounds: [validRound(fx)] },
          });
          expect(denied.isError).to.equal(true);
          expect((denied.content as { text: string }[])[0]!.text).to.match(/cap-table permission/);
        } finally {
          await viaMcp.close();
        }
        expect(await countFinancings(t.db)).to.equal(before);
      });

      it('writes no round when one fails in the middle of the transaction', async () => {
        const before = await countFinancings(t.db);
        const rows: NewFinancing[] = Array.from({ length: 5 }, (_, i) => ({
          id: `crash-${i}`,
          company_id: fx.companies.acme.id,
          name: `Crash ${i}`,
          closing_date: '2025-01-01',
          pre_money: { value: null, currency: null, fx_rate: null, is_custom_rate: null },
          round_size: { value: '1.00', currency: 'USD', fx_rate: '1', is_custom_rate: false },
          round_size_converted_value: '1.00',
          fully_diluted_shares: null,
          is_crypto: false,
          liquidation_multiple: null,
          cap_multiple: null,
          seniority_position: 'PARI_PASSU',
          participation_type: null,
          created_at: T0,
          co_investors: [{ name: 'Crash Capital', is_lead: true }],
          pari_passu_ids: [ids.acmeSeed],
        }));
        let error: unknown;
        try {
          await fx.repos.capTable.addFinancings(fx.firmA.id, rows, {
            afterInsert: (i) => {
              if (i === 2) throw new Error('crash after the third round');
            },
          });
        } catch (err) {
          error = err;
        }
        expect((error as Error)?.message).to.equal('crash after the third round');
        expect(await countFinancings(t.db)).to.equal(before);
        const investors = await t.db('financing_co_investors').where({ name: 'Crash Capital' });
        expect(investors).to.deep.equal([]);
        const links = await t.db('financing_pari_passu').whereIn(
          'financing_id',
          rows.map((r) => r.id),
        );
        expect(links).to.deep.equal([]);
      });

      it('is offered over MCP only when write tools are on', async () => {
        const listed = await mcp.listTools();
        const add = listed.tools.find((tool) => tool.name === 'add_financing_rounds');
        expect(add?.annotations?.destructiveHint).to.equal(true);
        expect(add?.annotations?.readOnlyHint).to.equal(false);
        const names = mcpTools({ writeTools: false }).map((tool) => tool.name);
        expect(names).to.include.members([
          'get_financing_events',
          'get_share_classes',
          'get_securities',
          'get_transactions',
        ]);
        expect(names).to.not.include('add_financing_rounds');
      });
    });
  });
}
