import type { Knex } from 'knex';
import type { Firm } from '../../core/principal.ts';

export function firmsRepo(db: Knex) {
  return {
    async get(id: string): Promise<Firm | undefined> {
      return db<Firm>('firms').where({ id }).first();
    },
    async getBySlug(slug: string): Promise<Firm | undefined> {
      return db<Firm>('firms').where({ slug }).first();
    },
    async list(): Promise<Firm[]> {
      return db<Firm>('firms').orderBy('slug');
    },
    async create(firm: Firm): Promise<Firm> {
      await db('firms').insert(firm);
      return firm;
    },
    async count(): Promise<number> {
      const row = (await db('firms').count({ n: '*' }).first()) as { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },
  };
}
export type FirmsRepo = ReturnType<typeof firmsRepo>;
