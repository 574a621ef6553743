import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { newId } from '../ids.ts';
import { latestRates, type RateProbe } from './fx-rates.ts';
import { bool, chunk, insertBatched, type QB, scoped } from './util.ts';

/** A money amount as stored: four columns (`<prefix>_value` …) or one object inside `details` JSON. */
export interface StoredMoney {
  /** Exact decimal text in `currency`; null when unknown. */
  value: string | null;
  currency: string | null;
  /** The rate into the firm's currency recorded with the amount (the caller's own when custom). */
  fx_rate: string | null;
  is_custom_rate: boolean | null;
}

export interface CoInvestorRow {
  name: string;
  is_lead: boolean;
}

/** What a stored round and a round to insert have in common. */
interface FinancingFields {
  id: string;
  company_id: string;
  name: string;
  closing_date: string;
  pre_money: StoredMoney;
  round_size: StoredMoney;
  round_size_converted_value: string | null;
  fully_diluted_shares: string | null;
  is_crypto: boolean;
  liquidation_multiple: string | null;
  cap_multiple: string | null;
  seniority_position: string | null;
  participation_type: string | null;
  created_at: string;
  /** In the order they were given. */
  co_investors: CoInvestorRow[];
}

export interface FinancingRecord extends FinancingFields {
  firm_id: string;
  company_name: string;
  /** The rounds declared pari passu with this one, in the order they were given. */
  pari_passu_rounds: { id: string; name: string }[];
}

export interface CoInvestorMatch {
  /** Matched case-insensitively against the whole co-investor name. */
  name: string;
  role: 'any' | 'lead' | 'co';
}

export interface FinancingFilter {
  companyIds?: string[];
  financingIds?: string[];
  isCrypto?: boolean;
  /** A round matches when every entry matches one of its co-investors. */
  coInvestors?: CoInvestorMatch[];
}

/** A round to insert; ids and rates are resolved by the caller. */
export interface NewFinancing extends FinancingFields {
  pari_passu_ids: string[];
}

export interface AddFinancingsOptions {
  /** Called after each round is written, inside the transaction (tests use it to fail midway). */
  afterInsert?: (index: number) => void | Promise<void>;
}

export interface ShareClassRecord {
  id: string;
  company_id: string;
  company_name: string;
  financing_id: string;
  /** The closing date of the share class's round: the date its price is converted at. */
  closing_date: string;
  purchase_type: string;
  type: string;
  name: string;
  price_per_share: StoredMoney;
  include_in_fair_value: boolean | null;
}

export interface ShareClassFilter {
  companyIds?: string[];
  shareClassIds?: string[];
  purchaseType?: string;
}

export interface SecurityRecord {
  id: string;
  company_id: string;
  company_name: string;
  fund_id: string;
  fund_name: string;
  financing_id: string | null;
  share_class_id: string | null;
  share_class_name: string | null;
  type: string;
  issue_date: string;
  /** The kind-specific fields, parsed from the `details` JSON. */
  details: Record<string, unknown>;
}

export interface SecurityFilter {
  companyIds?: string[];
  securityIds?: string[];
  fundId?: string;
}

export interface TransactionRecord {
  id: string;
  company_id: string;
  company_name: string;
  input_security_id: string | null;
  output_security_id: string | null;
  date: string;
  event: string;
  shares: string | null;
  investment_amount: StoredMoney;
  proceeds: StoredMoney;
}

export interface TransactionFilter {
  companyIds?: string[];
  transactionIds?: string[];
  event?: string;
  inputSecurityId?: string;
  outputSecurityId?: string;
  /** Transactions of any of these securities (the one transacted). */
  inputSecurityIds?: string[];
}

/** A fund's fair value of its position in a company on a date (0 for a write-off). */
export interface FairValueOverride {
  company_id: string;
  fund_id: string;
  date: string;
  fair_value: StoredMoney;
}

/** A fund's ownership of a company on a date, as a fraction from 0 to 1. */
export interface OwnershipOverride {
  company_id: string;
  fund_id: string;
  date: string;
  ownership_percentage: string;
}

/** A company's post-money valuation on a date, as the firm states it. */
export interface PostMoneyOverride {
  company_id: string;
  date: string;
  post_money_valuation: StoredMoney;
}

/** A share class to insert. */
export interface NewShareClass {
  id: string;
  company_id: string;
  financing_id: string;
  purchase_type: string;
  type: string;
  name: string;
  price_per_share: StoredMoney;
  include_in_fair_value: boolean;
  created_at: string;
}

/** A security to insert; `details` holds the kind's own fields (see tools/schemas/security.ts). */
export interface NewSecurity {
  id: string;
  company_id: string;
  fund_id: string;
  financing_id: string | null;
  share_class_id: string | null;
  type: string;
  issue_date: string;
  details: Record<string, unknown>;
  created_at: string;
}

/** A transaction to insert. */
export interface NewTransaction {
  id: string;
  company_id: string;
  input_security_id: string | null;
  output_security_id: string | null;
  date: string;
  event: string;
  shares: string | null;
  investment_amount: StoredMoney;
  proceeds: StoredMoney;
  created_at: string;
}

/** What a write needs to know of a referenced share class. */
export interface ShareClassRef {
  id: string;
  company_id: string;
  financing_id: string;
  name: string;
  closing_date: string;
  price_per_share: StoredMoney;
  /** Of the share class's round. */
  fully_diluted_shares: string | null;
}

type Raw = Record<string, unknown>;

type MoneySuffix = 'value' | 'currency' | 'fx_rate' | 'is_custom_rate';
/** The four columns of a money amount in a query result (`<prefix>_value` …). */
type MoneyColumns<P extends string> = { [K in `${P}_${MoneySuffix}`]: unknown };

interface FinancingRow extends MoneyColumns<'pre_money'>, MoneyColumns<'round_size'> {
  id: string;
  firm_id: string;
  company_id: string;
  company_name: string;
  name: string;
  closing_date: string;
  round_size_converted_value: string | null;
  fully_diluted_shares: string | null;
  is_crypto: unknown;
  liquidation_multiple: string | null;
  cap_multiple: string | null;
  seniority_position: string | null;
  participation_type: string | null;
  created_at: string;
}

interface ShareClassRow extends MoneyColumns<'price_per_share'> {
  id: string;
  company_id: string;
  company_name: string;
  financing_id: string;
  closing_date: string;
  purchase_type: string;
  type: string;
  name: string;
  include_in_fair_value: unknown;
}

interface SecurityRow {
  id: string;
  company_id: string;
  company_name: string;
  fund_id: string;
  fund_name: string;
  financing_id: string | null;
  share_class_id: string | null;
  share_class_name: string | null;
  type: string;
  issue_date: string;
  details: unknown;
}

interface TransactionRow extends MoneyColumns<'investment_amount'>, MoneyColumns<'proceeds'> {
  id: string;
  company_id: string;
  company_name: string;
  input_security_id: string | null;
  output_security_id: string | null;
  date: string;
  event: string;
  shares: string | null;
}

interface FairValueOverrideRow extends MoneyColumns<'fair_value'> {
  company_id: string;
  fund_id: string;
  date: string;
}

const moneySuffixes = ['value', 'currency', 'fx_rate', 'is_custom_rate'] as const;

function moneyColumns(table: string, prefix: string): string[] {
  return moneySuffixes.map((s) => `${table}.${prefix}_${s}`);
}

/** A nullable text column. */
function textOrNull(v: unknown): string | null {
  return (v as string | null) ?? null;
}

/** A nullable boolean column. */
function flagOrNull(v: unknown): boolean | null {
  return v === null || v === undefined ? null : bool(v);
}

function readMoney<P extends string>(row: MoneyColumns<P>, prefix: P): StoredMoney {
  const raw = row as Raw;
  return {
    value: textOrNull(raw[`${prefix}_value`]),
    currency: textOrNull(raw[`${prefix}_currency`]),
    fx_rate: textOrNull(raw[`${prefix}_fx_rate`]),
    is_custom_rate: flagOrNull(raw[`${prefix}_is_custom_rate`]),
  };
}

/** The four columns of a money amount, for an insert or an update. */
export function writeMoney(prefix: string, money: StoredMoney): Raw {
  return {
    [`${prefix}_value`]: money.value,
    [`${prefix}_currency`]: money.currency,
    [`${prefix}_fx_rate`]: money.fx_rate,
    [`${prefix}_is_custom_rate`]: money.is_custom_rate,
  };
}

function parseDetails(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return (text as Record<string, unknown> | null) ?? {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The columns of a round that a later import may change. */
function financingFieldsRow(round: NewFinancing): Raw {
  return {
    name: round.name,
    closing_date: round.closing_date,
    ...writeMoney('pre_money', round.pre_money),
    ...writeMoney('round_size', round.round_size),
    round_size_converted_value: round.round_size_converted_value,
    fully_diluted_shares: round.fully_diluted_shares,
    is_crypto: round.is_crypto,
    liquidation_multiple: round.liquidation_multiple,
    cap_multiple: round.cap_multiple,
    seniority_position: round.seniority_position,
    participation_type: round.participation_type,
  };
}

function financingRow(firmId: string, round: NewFinancing): Raw {
  return {
    id: round.id,
    firm_id: firmId,
    company_id: round.company_id,
    ...financingFieldsRow(round),
    created_at: round.created_at,
  };
}

function coInvestorRows(round: NewFinancing): Raw[] {
  return round.co_investors.map((c, position) => ({
    id: newId(),
    financing_id: round.id,
    name: c.name,
    is_lead: c.is_lead,
    position,
  }));
}

function pariPassuRows(round: NewFinancing): Raw[] {
  return round.pari_passu_ids.map((other, position) => ({
    financing_id: round.id,
    other_financing_id: other,
    position,
  }));
}

/** Batches of ids small enough for any database's bound-parameter limit. */
const ID_BATCH = 500;

/** The cap table of a firm: financings, share classes, securities and transactions. */
export function capTableRepo(db: Knex) {
  /** The rows of a table under financings, loaded in batches and listed per financing in query order. */
  async function perFinancing<R extends { financing_id: string }, T>(
    ids: string[],
    load: (batch: string[]) => Promise<R[]>,
    item: (row: R) => T,
  ): Promise<Map<string, T[]>> {
    const out = new Map<string, T[]>();
    for (const batch of chunk(ids, ID_BATCH)) {
      for (const r of await load(batch)) {
        const list = out.get(r.financing_id) ?? [];
        list.push(item(r));
        out.set(r.financing_id, list);
      }
    }
    return out;
  }

  function coInvestorsOf(ids: string[]): Promise<Map<string, CoInvestorRow[]>> {
    return perFinancing(
      ids,
      async (batch) =>
        (await db('financing_co_investors')
          .whereIn('financing_id', batch)
          .orderBy([{ column: 'financing_id' }, { column: 'position' }, { column: 'id' }])
          .select('financing_id', 'name', 'is_lead')) as {
          financing_id: string;
          name: string;
          is_lead: unknown;
        }[],
      (r) => ({ name: r.name, is_lead: bool(r.is_lead) }),
    );
  }

  function pariPassuOf(ids: string[]): Promise<Map<string, { id: string; name: string }[]>> {
    return perFinancing(
      ids,
      async (batch) =>
        (await db('financing_pari_passu')
          .join('financings', 'financings.id', 'financing_pari_passu.other_financing_id')
          .whereIn('financing_pari_passu.financing_id', batch)
          .orderBy([
            { column: 'financing_pari_passu.financing_id' },
            { column: 'financing_pari_passu.position' },
          ])
          .select(
            'financing_pari_passu.financing_id',
            'financings.id as other_id',
            'financings.name as other_name',
          )) as { financing_id: string; other_id: string; other_name: string }[],
      (r) => ({ id: r.other_id, name: r.other_name }),
    );
  }

  function withCompanyName(qb: QB, table: string): QB {
    return qb.join('companies', 'companies.id', `${table}.company_id`);
  }

  const financingColumns = [
    'financings.id',
    'financings.firm_id',
    'financings.company_id',
    'companies.name as company_name',
    'financings.name',
    'financings.closing_date',
    ...moneyColumns('financings', 'pre_money'),
    ...moneyColumns('financings', 'round_size'),
    'financings.round_size_converted_value',
    'financings.fully_diluted_shares',
    'financings.is_crypto',
    'financings.liquidation_multiple',
    'financings.cap_multiple',
    'financings.seniority_position',
    'financings.participation_type',
    'financings.created_at',
  ];

  async function loadFinancings(qb: QB): Promise<FinancingRecord[]> {
    const raws = (await withCompanyName(qb, 'financings')
      .select(financingColumns)
      .orderBy([{ column: 'financings.closing_date' }, { column: 'financings.id' }])) as FinancingRow[];
    const ids = raws.map((r) => r.id);
    const [investors, pariPassu] = [await coInvestorsOf(ids), await pariPassuOf(ids)];
    return raws.map((r) => ({
      id: r.id,
      firm_id: r.firm_id,
      company_id: r.company_id,
      company_name: r.company_name,
      name: r.name,
      closing_date: r.closing_date,
      pre_money: readMoney(r, 'pre_money'),
      round_size: readMoney(r, 'round_size'),
      round_size_converted_value: textOrNull(r.round_size_converted_value),
      fully_diluted_shares: textOrNull(r.fully_diluted_shares),
      is_crypto: bool(r.is_crypto),
      liquidation_multiple: textOrNull(r.liquidation_multiple),
      cap_multiple: textOrNull(r.cap_multiple),
      seniority_position: textOrNull(r.seniority_position),
      participation_type: textOrNull(r.participation_type),
      created_at: r.created_at,
      co_investors: investors.get(r.id) ?? [],
      pari_passu_rounds: pariPassu.get(r.id) ?? [],
    }));
  }

  return {
    /** Every visible financing that matches, by closing date, then id. */
    async financings(scope: Scope, filter: FinancingFilter): Promise<FinancingRecord[]> {
      const qb = scoped(db('financings'), scope, 'financings');
      if (filter.companyIds) qb.whereIn('financings.company_id', filter.companyIds);
      if (filter.financingIds) qb.whereIn('financings.id', filter.financingIds);
      if (filter.isCrypto !== undefined) qb.where('financings.is_crypto', filter.isCrypto);
      for (const match of filter.coInvestors ?? []) {
        qb.whereExists(function () {
          this.select(db.raw('1'))
            .from('financing_co_investors')
            .whereRaw('financing_co_investors.financing_id = financings.id')
            .whereRaw('lower(financing_co_investors.name) = ?', [match.name.toLowerCase()]);
          if (match.role !== 'any') this.where('financing_co_investors.is_lead', match.role === 'lead');
        });
      }
      return loadFinancings(qb);
    },

    /** The visible financings among `ids`, each with its company and name (for checking references). */
    async financingRefs(
      scope: Scope,
      ids: string[],
    ): Promise<Map<string, { company_id: string; name: string; closing_date: string }>> {
      const out = new Map<string, { company_id: string; name: string; closing_date: string }>();
      for (const batch of chunk([...new Set(ids)], ID_BATCH)) {
        const rows = (await scoped(db('financings'), scope, 'financings')
          .whereIn('financings.id', batch)
          .select(
            'financings.id',
            'financings.company_id',
            'financings.name',
            'financings.closing_date',
          )) as {
          id: string;
          company_id: string;
          name: string;
          closing_date: string;
        }[];
        for (const r of rows)
          out.set(r.id, { company_id: r.company_id, name: r.name, closing_date: r.closing_date });
      }
      return out;
    },

    /** Inserts every round, with its co-investors and pari passu links, in one transaction: all or none. */
    async addFinancings(
      firmId: string,
      rounds: NewFinancing[],
      options: AddFinancingsOptions = {},
    ): Promise<void> {
      await db.transaction(async (trx) => {
        for (const [i, round] of rounds.entries()) {
          await trx('financings').insert(financingRow(firmId, round));
          await insertBatched(trx, 'financing_co_investors', coInvestorRows(round));
          await insertBatched(trx, 'financing_pari_passu', pariPassuRows(round));
          await options.afterInsert?.(i);
        }
      });
    },

    /**
     * Inserts rounds in bulk inside the caller's transaction: the rounds, their co-investors, then
     * their pari passu links, which may point at any round of the same call.
     */
    async insertFinancings(firmId: string, rounds: readonly NewFinancing[]): Promise<void> {
      await insertBatched(
        db,
        'financings',
        rounds.map((r) => financingRow(firmId, r)),
      );
      await insertBatched(db, 'financing_co_investors', rounds.flatMap(coInvestorRows));
      await insertBatched(db, 'financing_pari_passu', rounds.flatMap(pariPassuRows));
    },

    /** Rewrites stored rounds (by id) whole: their fields, co-investors and pari passu links. */
    async replaceFinancings(rounds: readonly NewFinancing[]): Promise<void> {
      for (const round of rounds) {
        await db('financings').where({ id: round.id }).update(financingFieldsRow(round));
      }
      for (const ids of chunk(
        rounds.map((r) => r.id),
        ID_BATCH,
      )) {
        await db('financing_co_investors').whereIn('financing_id', ids).delete();
        await db('financing_pari_passu').whereIn('financing_id', ids).delete();
      }
      await insertBatched(db, 'financing_co_investors', rounds.flatMap(coInvestorRows));
      await insertBatched(db, 'financing_pari_passu', rounds.flatMap(pariPassuRows));
    },

    /** The visible financings with these ids, in no particular order. */
    async financingsById(scope: Scope, ids: string[]): Promise<FinancingRecord[]> {
      if (ids.length === 0) return [];
      return loadFinancings(scoped(db('financings'), scope, 'financings').whereIn('financings.id', ids));
    },

    /** Every visible share class that matches, by its round's closing date, then name, then id. */
    async shareClasses(scope: Scope, filter: ShareClassFilter): Promise<ShareClassRecord[]> {
      const qb = withCompanyName(scoped(db('share_classes'), scope, 'share_classes'), 'share_classes').join(
        'financings',
        'financings.id',
        'share_classes.financing_id',
      );
      if (filter.companyIds) qb.whereIn('share_classes.company_id', filter.companyIds);
      if (filter.shareClassIds) qb.whereIn('share_classes.id', filter.shareClassIds);
      if (filter.purchaseType) qb.where('share_classes.purchase_type', filter.purchaseType);
      const raws = (await qb
        .select(
          'share_classes.id',
          'share_classes.company_id',
          'companies.name as company_name',
          'share_classes.financing_id',
          'financings.closing_date',
          'share_classes.purchase_type',
          'share_classes.type',
          'share_classes.name',
          ...moneyColumns('share_classes', 'price_per_share'),
          'share_classes.include_in_fair_value',
        )
        .orderBy([
          { column: 'financings.closing_date' },
          { column: 'share_classes.name' },
          { column: 'share_classes.id' },
        ])) as ShareClassRow[];
      return raws.map((r) => ({
        id: r.id,
        company_id: r.company_id,
        company_name: r.company_name,
        financing_id: r.financing_id,
        closing_date: r.closing_date,
        purchase_type: r.purchase_type,
        type: r.type,
        name: r.name,
        price_per_share: readMoney(r, 'price_per_share'),
        include_in_fair_value: flagOrNull(r.include_in_fair_value),
      }));
    },

    /** Every visible security that matches, by issue date, then id. */
    async securities(scope: Scope, filter: SecurityFilter): Promise<SecurityRecord[]> {
      const qb = withCompanyName(scoped(db('securities'), scope, 'securities'), 'securities')
        .join('funds', 'funds.id', 'securities.fund_id')
        .leftJoin('share_classes', 'share_classes.id', 'securities.share_class_id');
      if (filter.companyIds) qb.whereIn('securities.company_id', filter.companyIds);
      if (filter.securityIds) qb.whereIn('securities.id', filter.securityIds);
      if (filter.fundId) qb.where('securities.fund_id', filter.fundId);
      const raws = (await qb
        .select(
          'securities.id',
          'securities.company_id',
          'companies.name as company_name',
          'securities.fund_id',
          'funds.name as fund_name',
          'securities.financing_id',
          'securities.share_class_id',
          'share_classes.name as share_class_name',
          'securities.type',
          'securities.issue_date',
          'securities.details',
        )
        .orderBy([{ column: 'securities.issue_date' }, { column: 'securities.id' }])) as SecurityRow[];
      return raws.map((r) => ({
        id: r.id,
        company_id: r.company_id,
        company_name: r.company_name,
        fund_id: r.fund_id,
        fund_name: r.fund_name,
        financing_id: textOrNull(r.financing_id),
        share_class_id: textOrNull(r.share_class_id),
        share_class_name: textOrNull(r.share_class_name),
        type: r.type,
        issue_date: r.issue_date,
        details: parseDetails(r.details),
      }));
    },

    /** Every visible transaction that matches, by date, then id. */
    async transactions(scope: Scope, filter: TransactionFilter): Promise<TransactionRecord[]> {
      const qb = withCompanyName(scoped(db('transactions'), scope, 'transactions'), 'transactions');
      if (filter.companyIds) qb.whereIn('transactions.company_id', filter.companyIds);
      if (filter.transactionIds) qb.whereIn('transactions.id', filter.transactionIds);
      if (filter.event) qb.where('transactions.event', filter.event);
      if (filter.inputSecurityId) qb.where('transactions.input_security_id', filter.inputSecurityId);
      if (filter.outputSecurityId) qb.where('transactions.output_security_id', filter.outputSecurityId);
      if (filter.inputSecurityIds) qb.whereIn('transactions.input_security_id', filter.inputSecurityIds);
      const raws = (await qb
        .select(
          'transactions.id',
          'transactions.company_id',
          'companies.name as company_name',
          'transactions.input_security_id',
          'transactions.output_security_id',
          'transactions.date',
          'transactions.event',
          'transactions.shares',
          ...moneyColumns('transactions', 'investment_amount'),
          ...moneyColumns('transactions', 'proceeds'),
        )
        .orderBy([{ column: 'transactions.date' }, { column: 'transactions.id' }])) as TransactionRow[];
      return raws.map((r) => ({
        id: r.id,
        company_id: r.company_id,
        company_name: r.company_name,
        input_security_id: textOrNull(r.input_security_id),
        output_security_id: textOrNull(r.output_security_id),
        date: r.date,
        event: r.event,
        shares: textOrNull(r.shares),
        investment_amount: readMoney(r, 'investment_amount'),
        proceeds: readMoney(r, 'proceeds'),
      }));
    },

    /** The visible fair-value overrides on or before a date, oldest first. */
    async fairValueOverrides(
      scope: Scope,
      filter: { companyIds?: string[]; onOrBefore: string },
    ): Promise<FairValueOverride[]> {
      const qb = scoped(db('fair_value_overrides'), scope, 'fair_value_overrides').where(
        'date',
        '<=',
        filter.onOrBefore,
      );
      if (filter.companyIds) qb.whereIn('company_id', filter.companyIds);
      const raws = (await qb
        .select('company_id', 'fund_id', 'date', ...moneyColumns('fair_value_overrides', 'fair_value'))
        .orderBy([{ column: 'date' }, { column: 'id' }])) as FairValueOverrideRow[];
      return raws.map((r) => ({
        company_id: r.company_id,
        fund_id: r.fund_id,
        date: r.date,
        fair_value: readMoney(r, 'fair_value'),
      }));
    },

    /** Sets a fund's fair value of a company on a date, replacing one already set for that date. */
    async upsertFairValueOverride(
      firmId: string,
      row: FairValueOverride,
      now: string,
      id: string = newId(),
    ): Promise<void> {
      await db('fair_value_overrides')
        .insert({
          id,
          firm_id: firmId,
          company_id: row.company_id,
          fund_id: row.fund_id,
          date: row.date,
          ...writeMoney('fair_value', row.fair_value),
          created_at: now,
        })
        .onConflict(['company_id', 'fund_id', 'date'])
        .merge([
          'fair_value_value',
          'fair_value_currency',
          'fair_value_fx_rate',
          'fair_value_is_custom_rate',
        ]);
    },

    /** The firm's funds among `ids` (funds belong to the firm, not to companies). */
    async fundRefs(firmId: string, ids: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const batch of chunk([...new Set(ids)], ID_BATCH)) {
        const rows = (await db('funds').where('firm_id', firmId).whereIn('id', batch).select('id')) as {
          id: string;
        }[];
        for (const r of rows) out.add(r.id);
      }
      return out;
    },

    /** The visible share classes among `ids`, with their round's closing date and share count. */
    async shareClassRefs(scope: Scope, ids: string[]): Promise<Map<string, ShareClassRef>> {
      const out = new Map<string, ShareClassRef>();
      for (const batch of chunk([...new Set(ids)], ID_BATCH)) {
        const raws = (await scoped(db('share_classes'), scope, 'share_classes')
          .join('financings', 'financings.id', 'share_classes.financing_id')
          .whereIn('share_classes.id', batch)
          .select(
            'share_classes.id',
            'share_classes.company_id',
            'share_classes.financing_id',
            'share_classes.name',
            'financings.closing_date',
            'financings.fully_diluted_shares',
            ...moneyColumns('share_classes', 'price_per_share'),
          )) as Raw[];
        for (const r of raws) {
          out.set(r.id as string, {
            id: r.id as string,
            company_id: r.company_id as string,
            financing_id: r.financing_id as string,
            name: r.name as string,
            closing_date: r.closing_date as string,
            price_per_share: readMoney(r as MoneyColumns<'price_per_share'>, 'price_per_share'),
            fully_diluted_shares: textOrNull(r.fully_diluted_shares),
          });
        }
      }
      return out;
    },

    /** Inserts share classes; the caller runs it in the write's transaction. */
    async addShareClasses(firmId: string, rows: NewShareClass[]): Promise<void> {
      await insertBatched(
        db,
        'share_classes',
        rows.map((r) => ({
          id: r.id,
          firm_id: firmId,
          company_id: r.company_id,
          financing_id: r.financing_id,
          purchase_type: r.purchase_type,
          type: r.type,
          name: r.name,
          ...writeMoney('price_per_share', r.price_per_share),
          include_in_fair_value: r.include_in_fair_value,
          created_at: r.created_at,
        })),
      );
    },

    /** Inserts securities; the caller runs it in the write's transaction. */
    async addSecurities(firmId: string, rows: NewSecurity[]): Promise<void> {
      await insertBatched(
        db,
        'securities',
        rows.map((r) => ({
          id: r.id,
          firm_id: firmId,
          company_id: r.company_id,
          fund_id: r.fund_id,
          financing_id: r.financing_id,
          share_class_id: r.share_class_id,
          type: r.type,
          issue_date: r.issue_date,
          details: JSON.stringify(r.details),
          created_at: r.created_at,
        })),
      );
    },

    /** Inserts transactions; the caller runs it in the write's transaction, after their securities. */
    async addTransactions(firmId: string, rows: NewTransaction[]): Promise<void> {
      await insertBatched(
        db,
        'transactions',
        rows.map((r) => ({
          id: r.id,
          firm_id: firmId,
          company_id: r.company_id,
          input_security_id: r.input_security_id,
          output_security_id: r.output_security_id,
          date: r.date,
          event: r.event,
          shares: r.shares,
          ...writeMoney('investment_amount', r.investment_amount),
          ...writeMoney('proceeds', r.proceeds),
          created_at: r.created_at,
        })),
      );
    },

    /** The visible ownership overrides on or before a date, oldest first. */
    async ownershipOverrides(
      scope: Scope,
      filter: { companyIds?: string[]; onOrBefore: string },
    ): Promise<OwnershipOverride[]> {
      const qb = scoped(db('ownership_overrides'), scope, 'ownership_overrides').where(
        'date',
        '<=',
        filter.onOrBefore,
      );
      if (filter.companyIds) qb.whereIn('company_id', filter.companyIds);
      return (await qb
        .select('company_id', 'fund_id', 'date', 'ownership_percentage')
        .orderBy([{ column: 'date' }, { column: 'id' }])) as OwnershipOverride[];
    },

    /** The visible post-money valuation overrides on or before a date, oldest first. */
    async postMoneyOverrides(
      scope: Scope,
      filter: { companyIds?: string[]; onOrBefore: string },
    ): Promise<PostMoneyOverride[]> {
      const qb = scoped(db('post_money_valuation_overrides'), scope, 'post_money_valuation_overrides').where(
        'date',
        '<=',
        filter.onOrBefore,
      );
      if (filter.companyIds) qb.whereIn('company_id', filter.companyIds);
      const raws = (await qb
        .select('company_id', 'date', ...moneyColumns('post_money_valuation_overrides', 'post_money'))
        .orderBy([{ column: 'date' }, { column: 'id' }])) as Raw[];
      return raws.map((r) => ({
        company_id: r.company_id as string,
        date: r.date as string,
        post_money_valuation: readMoney(r as MoneyColumns<'post_money'>, 'post_money'),
      }));
    },

    /** Sets a fund's ownership of a company on a date, replacing one already set for that date. */
    async upsertOwnershipOverride(
      firmId: string,
      id: string,
      row: OwnershipOverride,
      now: string,
    ): Promise<void> {
      await db('ownership_overrides')
        .insert({ id, firm_id: firmId, ...row, created_at: now })
        .onConflict(['company_id', 'fund_id', 'date'])
        .merge(['ownership_percentage']);
    },

    /** Sets a company's post-money valuation on a date, replacing one already set for that date. */
    async upsertPostMoneyOverride(
      firmId: string,
      id: string,
      row: PostMoneyOverride,
      now: string,
    ): Promise<void> {
      await db('post_money_valuation_overrides')
        .insert({
          id,
          firm_id: firmId,
          company_id: row.company_id,
          date: row.date,
          ...writeMoney('post_money', row.post_money_valuation),
          created_at: now,
        })
        .onConflict(['company_id', 'date'])
        .merge([
          'post_money_value',
          'post_money_currency',
          'post_money_fx_rate',
          'post_money_is_custom_rate',
        ]);
    },

    /** The firm's latest rates on or before each probe's date (see fx-rates.ts). */
    latestRates(firmId: string, to: string, probes: RateProbe[]): Promise<Map<string, string>> {
      return latestRates(db, firmId, to, probes);
    },
  };
}
export type CapTableRepo = ReturnType<typeof capTableRepo>;
