import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { newId } from '../ids.ts';
import {
  FAIR_VALUE_OVERRIDE,
  type FairValueOverrideRow,
  type MoneyColumns,
  moneyColumns,
  POST_MONEY_OVERRIDE,
  type Raw,
  readMoney,
  tableRow,
} from './cap-table-rows.ts';
import type { FairValueOverride, OwnershipOverride, PostMoneyOverride } from './cap-table-types.ts';
import { scoped } from './util.ts';

/** The values a firm states by hand on a date: fair values, ownerships, post-money valuations. */
export function overridesRepo(db: Knex) {
  return {
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
        .insert(tableRow(FAIR_VALUE_OVERRIDE, row, { id, firm_id: firmId, created_at: now }))
        .onConflict(['company_id', 'fund_id', 'date'])
        .merge([
          'fair_value_value',
          'fair_value_currency',
          'fair_value_fx_rate',
          'fair_value_is_custom_rate',
        ]);
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
        .insert(tableRow(POST_MONEY_OVERRIDE, row, { id, firm_id: firmId, created_at: now }))
        .onConflict(['company_id', 'date'])
        .merge([
          'post_money_value',
          'post_money_currency',
          'post_money_fx_rate',
          'post_money_is_custom_rate',
        ]);
    },
  };
}
