import type { Knex } from 'knex';

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

export function tokensRepo(db: Knex) {
  return {
    async insert(token: AccessTokenRow): Promise<void> {
      await db('access_tokens').insert(token);
    },
    async findByHash(hash: string): Promise<AccessTokenRow | undefined> {
      return db<AccessTokenRow>('access_tokens').where({ token_hash: hash }).first();
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
