import type { Knex } from 'knex';
import type { Counted, Page } from '../types.ts';
import { countAndPage } from './util.ts';

export interface FundRow {
  id: string;
  firm_id: string;
  name: string;
  size: string;
  vintage: number;
  currency: string;
  created_at: string;
}

export function fundsRepo(db: Knex) {
  return {
    /** Funds belong to the firm, not to companies, so company access does not narrow them. */
    async list(firmId: string, page: Page): Promise<Counted<FundRow>> {
      const base = db('funds').where('funds.firm_id', firmId);
      const result = await countAndPage<FundRow>(db, base, page, (qb) =>
        qb.orderBy([{ column: 'funds.name' }, { column: 'funds.id' }]),
      );
      return { count: result.count, rows: result.rows.map((r) => ({ ...r, vintage: Number(r.vintage) })) };
    },
    async get(firmId: string, id: string): Promise<FundRow | undefined> {
      return db<FundRow>('funds').where({ firm_id: firmId, id }).first();
    },
    async create(fund: FundRow): Promise<void> {
      await db('funds').insert(fund);
    },
  };
}
export type FundsRepo = ReturnType<typeof fundsRepo>;
