import type { Knex } from 'knex';

/** A signed-in browser: the cookie value is stored only as its SHA-256 (`id_hash`). */
export interface WebSessionRow {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export function sessionsRepo(db: Knex) {
  return {
    async insert(row: WebSessionRow): Promise<void> {
      await db('web_sessions').insert(row);
    },
    async find(idHash: string): Promise<WebSessionRow | undefined> {
      return db<WebSessionRow>('web_sessions').where({ id_hash: idHash }).first();
    },
    async remove(idHash: string): Promise<void> {
      await db('web_sessions').where({ id_hash: idHash }).delete();
    },
    /** Browser sessions still valid at `now`, for the active sign-ins gauge. */
    async countActive(now: string): Promise<number> {
      const row = await db('web_sessions').where('expires_at', '>', now).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    /** Drops sessions that ended before `now` (called now and then, not on every request). */
    async removeExpired(now: string): Promise<void> {
      await db('web_sessions').where('expires_at', '<=', now).delete();
    },
  };
}
export type SessionsRepo = ReturnType<typeof sessionsRepo>;
