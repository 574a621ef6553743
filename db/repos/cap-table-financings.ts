import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import {
  coInvestorRows,
  FINANCING,
  FINANCING_FIELDS,
  type FinancingRow,
  ID_BATCH,
  moneyColumns,
  pariPassuRows,
  readMoney,
  tableRow,
  textOrNull,
  withCompanyName,
} from './cap-table-rows.ts';
import type {
  AddFinancingsOptions,
  CoInvestorRow,
  FinancingFilter,
  FinancingRecord,
  NewFinancing,
} from './cap-table-types.ts';
import { bool, chunk, insertBatched, type QB, scoped } from './util.ts';

/** The financing rounds of the cap table, with their co-investors and pari passu links. */
export function financingsRepo(db: Knex) {
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
          await trx('financings').insert(tableRow(FINANCING, round, { firm_id: firmId }));
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
        rounds.map((r) => tableRow(FINANCING, r, { firm_id: firmId })),
      );
      await insertBatched(db, 'financing_co_investors', rounds.flatMap(coInvestorRows));
      await insertBatched(db, 'financing_pari_passu', rounds.flatMap(pariPassuRows));
    },

    /** Rewrites stored rounds (by id) whole: their fields, co-investors and pari passu links. */
    async replaceFinancings(rounds: readonly NewFinancing[]): Promise<void> {
      for (const round of rounds) {
        await db('financings').where({ id: round.id }).update(tableRow(FINANCING_FIELDS, round));
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
  };
}
