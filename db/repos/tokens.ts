import type { Knex } from 'knex';
import type { Firm, User } from '../../core/principal.ts';
import { numberOf } from '../count-cache.ts';
import { kept } from '../kept.ts';
import { toUser } from './users.ts';

export type TokenKind = 'client_credentials' | 'mcp' | 'personal';
export type Audience = 'rest' | 'mcp' | 'any';

export interface AccessTokenRow {
  id: string;
  token_hash: string;
  kind: TokenKind;
  audience: Audience;
  firm_id: string;
  user_id: string;
  application_id: string | null;
  grant_id: string | null;
  name: string | null;
  resource: string | null;
  scope: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** At most `max` applications and personal tokens together created by one user since `since`. */
export interface CreationBudget {
  since: string;
  max: number;
}

export type CreationOutcome = 'created' | 'too_many_applications' | 'budget_spent';

/** Takes the user's row lock first, so one user's concurrent creations are counted one after another. */
async function lockUser(trx: Knex, userId: string): Promise<void> {
  await trx.raw('update users set id = id where id = ?', [userId]);
}

async function createdSince(trx: Knex, userId: string, since: string): Promise<number> {
  const [apps] = await trx('oauth_applications')
    .where({ user_id: userId })
    .where('created_at', '>=', since)
    .count({ n: '*' });
  const [tokens] = await trx('access_tokens')
    .where({ user_id: userId, kind: 'personal' })
    .where('created_at', '>=', since)
    .count({ n: '*' });
  return Number(apps?.n ?? 0) + Number(tokens?.n ?? 0);
}

export interface ApplicationRow {
  id: string;
  firm_id: string;
  user_id: string;
  name: string;
  client_id: string;
  client_secret_hash: string;
  created_at: string;
  revoked_at: string | null;
}

const USER_COLUMNS = [
  'id',
  'firm_id',
  'email',
  'first_name',
  'last_name',
  'password_hash',
  'role',
  'all_companies',
  'can_view_documents',
  'can_edit_cap_table',
  'is_active',
  'created_at',
] as const satisfies readonly (keyof User)[];

const FIRM_COLUMNS = [
  'id',
  'slug',
  'name',
  'preferred_currency',
  'country',
  'city',
  'enabled_feature_flags',
  'created_at',
] as const satisfies readonly (keyof Firm)[];

/** Read on every request (the principal cache checks it), so built once. */
/** As a count ({ n }): on SQLite it is then read again only once the database has changed. */
const authVersionOf = kept((db) => db('auth_version').where({ id: 1 }).first({ n: 'version' }));

export function tokensRepo(db: Knex) {
  return {
    async insert(token: AccessTokenRow): Promise<void> {
      await db('access_tokens').insert(token);
    },
    async findByHash(hash: string): Promise<AccessTokenRow | undefined> {
      return db<AccessTokenRow>('access_tokens').where({ token_hash: hash }).first();
    },
    /**
     * The database's authentication counter (migration 017): every change to tokens, sign-ins, users,
     * firms or company access moves it, so a principal cached at one value is still true while it holds.
     */
    async authVersion(): Promise<number> {
      return numberOf(db, authVersionOf.sqlOf(db, {}));
    },
    /** A token with its user and the user's firm, in one query: the hot path of every request. */
    async findWithOwner(
      hash: string,
    ): Promise<{ token: AccessTokenRow; user: User; firm: Firm } | undefined> {
      const row = (await db('access_tokens as t')
        .join('users as u', 'u.id', 't.user_id')
        .join('firms as f', 'f.id', 'u.firm_id')
        .where('t.token_hash', hash)
        .first(
          't.*',
          ...USER_COLUMNS.map((c) => `u.${c} as u__${c}`),
          ...FIRM_COLUMNS.map((c) => `f.${c} as f__${c}`),
        )) as Record<string, unknown> | undefined;
      if (!row) return undefined;
      const pick = (prefix: string, columns: readonly string[]) =>
        Object.fromEntries(columns.map((c) => [c, row[`${prefix}${c}`]]));
      const token = Object.fromEntries(
        Object.entries(row).filter(([k]) => !k.includes('__')),
      ) as unknown as AccessTokenRow;
      return {
        token,
        user: toUser(pick('u__', USER_COLUMNS) as unknown as User),
        firm: pick('f__', FIRM_COLUMNS) as unknown as Firm,
      };
    },
    async get(id: string): Promise<AccessTokenRow | undefined> {
      return db<AccessTokenRow>('access_tokens').where({ id }).first();
    },
    async listPersonal(userId: string): Promise<AccessTokenRow[]> {
      return db<AccessTokenRow>('access_tokens')
        .where({ user_id: userId, kind: 'personal' })
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
    },
    async listPersonalForFirm(firmId: string): Promise<AccessTokenRow[]> {
      return db<AccessTokenRow>('access_tokens')
        .where({ firm_id: firmId, kind: 'personal' })
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
    },
    async revoke(id: string, at: string): Promise<boolean> {
      const n = await db('access_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: at });
      return n > 0;
    },
    /** Inserts a personal token unless its user's creation budget is spent, in one transaction. */
    async insertPersonalWithin(row: AccessTokenRow, budget: CreationBudget): Promise<CreationOutcome> {
      return db.transaction(async (trx): Promise<CreationOutcome> => {
        await lockUser(trx, row.user_id);
        if ((await createdSince(trx, row.user_id, budget.since)) >= budget.max) return 'budget_spent';
        await trx('access_tokens').insert(row);
        return 'created';
      });
    },
    async touch(id: string, at: string): Promise<void> {
      await db('access_tokens').where({ id }).update({ last_used_at: at });
    },
  };
}
export type TokensRepo = ReturnType<typeof tokensRepo>;

export function applicationsRepo(db: Knex) {
  return {
    async insert(app: ApplicationRow): Promise<void> {
      await db('oauth_applications').insert(app);
    },
    /**
     * Inserts an application unless its user already has `maxActive` unrevoked ones or has spent the
     * creation budget, in one transaction.
     */
    async insertWithin(
      app: ApplicationRow,
      maxActive: number,
      budget: CreationBudget,
    ): Promise<CreationOutcome> {
      return db.transaction(async (trx): Promise<CreationOutcome> => {
        await lockUser(trx, app.user_id);
        const [active] = await trx('oauth_applications')
          .where({ user_id: app.user_id })
          .whereNull('revoked_at')
          .count({ n: '*' });
        if (Number(active?.n ?? 0) >= maxActive) return 'too_many_applications';
        if ((await createdSince(trx, app.user_id, budget.since)) >= budget.max) return 'budget_spent';
        await trx('oauth_applications').insert(app);
        return 'created';
      });
    },
    async findByClientId(clientId: string): Promise<ApplicationRow | undefined> {
      return db<ApplicationRow>('oauth_applications').where({ client_id: clientId }).first();
    },
    async get(id: string): Promise<ApplicationRow | undefined> {
      return db<ApplicationRow>('oauth_applications').where({ id }).first();
    },
    async listForFirm(firmId: string): Promise<ApplicationRow[]> {
      return db<ApplicationRow>('oauth_applications')
        .where({ firm_id: firmId })
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
    },
    async listForUser(userId: string): Promise<ApplicationRow[]> {
      return db<ApplicationRow>('oauth_applications')
        .where({ user_id: userId })
        .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
    },
    /** Revokes the application and, in the same transaction, every token it was issued. */
    async revoke(id: string, at: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        const n = await trx('oauth_applications')
          .where({ id })
          .whereNull('revoked_at')
          .update({ revoked_at: at });
        await trx('access_tokens')
          .where({ application_id: id })
          .whereNull('revoked_at')
          .update({ revoked_at: at });
        return n > 0;
      });
    },
  };
}
export type ApplicationsRepo = ReturnType<typeof applicationsRepo>;
