import type { Knex } from 'knex';
import type { AccessTokenRow } from './tokens.ts';
import { bool } from './util.ts';

/** A registered MCP client, or the cached metadata document of a URL client id. */
export interface McpClientRow {
  client_id: string;
  client_secret_hash: string | null;
  /** The client's metadata as JSON (RFC 7591 fields), never its secret. */
  metadata: string;
  is_metadata_document: boolean;
  created_at: string;
  fetched_at: string | null;
}

/** One MCP sign-in: every token issued from it dies with it, and at `expires_at` at the latest. */
export interface McpGrantRow {
  id: string;
  client_id: string;
  user_id: string;
  firm_id: string;
  resource: string;
  scope: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A grant as the connections page shows it, with the client's metadata. */
export interface McpGrantWithClient extends McpGrantRow {
  client_metadata: string | null;
}

export interface AuthorizationCodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  /** Whether the authorization request named redirect_uri (then the token request must repeat it). */
  redirect_uri_given: boolean;
  code_challenge: string;
  resource: string;
  scope: string;
  expires_at: string;
  used_at: string | null;
  grant_id: string | null;
}

export interface RefreshTokenRow {
  token_hash: string;
  grant_id: string;
  created_at: string;
  used_at: string | null;
  /** The response that spent it, sealed with the token itself, for a retry within seconds. */
  reissue: string | null;
}

/** The tokens one exchange issues: an access token row and the hash of a new refresh token. */
export interface IssuedTokens {
  access: AccessTokenRow;
  refreshHash: string;
}

function toClient(row: McpClientRow): McpClientRow {
  return { ...row, is_metadata_document: bool(row.is_metadata_document) };
}

async function revokeGrantIn(trx: Knex, id: string, at: string): Promise<boolean> {
  const n = await trx('mcp_grants').where({ id }).whereNull('revoked_at').update({ revoked_at: at });
  await trx('access_tokens').where({ grant_id: id }).whereNull('revoked_at').update({ revoked_at: at });
  return n > 0;
}

async function insertTokens(trx: Knex, issued: IssuedTokens, at: string): Promise<void> {
  await trx('access_tokens').insert(issued.access);
  await trx('refresh_tokens').insert({
    token_hash: issued.refreshHash,
    grant_id: issued.access.grant_id,
    created_at: at,
    used_at: null,
  });
}

/** MCP authorization: clients, sign-ins (grants), authorization codes and refresh tokens. */
export function mcpAuthRepo(db: Knex) {
  return {
    /**
     * Deletes registered clients created before `olderThan` that never completed a sign-in (no grant),
     * with their unredeemed authorization codes; answers how many clients went.
     */
    async deleteAbandonedClients(olderThan: string): Promise<number> {
      return db.transaction(async (trx): Promise<number> => {
        const abandoned = trx('mcp_clients')
          .select('client_id')
          .where('is_metadata_document', false)
          .where('created_at', '<', olderThan)
          .whereNotIn('client_id', trx('mcp_grants').select('client_id'));
        await trx('authorization_codes')
          .whereIn('client_id', abandoned.clone())
          .whereNull('grant_id')
          .delete();
        return Number(await trx('mcp_clients').whereIn('client_id', abandoned).delete());
      });
    },

    async getClient(clientId: string): Promise<McpClientRow | undefined> {
      const row = await db<McpClientRow>('mcp_clients').where({ client_id: clientId }).first();
      return row && toClient(row);
    },
    async insertClient(row: McpClientRow): Promise<void> {
      await db('mcp_clients').insert(row);
    },
    /** Stores a freshly fetched metadata document, replacing an older copy. */
    async saveMetadataDocument(clientId: string, metadata: string, at: string): Promise<void> {
      await db('mcp_clients')
        .insert({
          client_id: clientId,
          client_secret_hash: null,
          metadata,
          is_metadata_document: true,
          created_at: at,
          fetched_at: at,
        })
        .onConflict('client_id')
        .merge(['metadata', 'fetched_at']);
    },

    async insertCode(row: AuthorizationCodeRow): Promise<void> {
      await db('authorization_codes').insert(row);
    },
    async getCode(codeHash: string): Promise<AuthorizationCodeRow | undefined> {
      const row = await db<AuthorizationCodeRow>('authorization_codes')
        .where({ code_hash: codeHash })
        .first();
      return row && { ...row, redirect_uri_given: bool(row.redirect_uri_given) };
    },
    /**
     * Spends a code and starts its sign-in in one transaction: false when the code was already
     * spent (a concurrent or repeated exchange), in which case nothing is created.
     */
    async redeemCode(codeHash: string, grant: McpGrantRow, issued: IssuedTokens): Promise<boolean> {
      return db.transaction(async (trx) => {
        const n = await trx('authorization_codes')
          .where({ code_hash: codeHash })
          .whereNull('used_at')
          .update({ used_at: grant.created_at, grant_id: grant.id });
        if (n === 0) return false;
        await trx('mcp_grants').insert(grant);
        await insertTokens(trx, issued, grant.created_at);
        return true;
      });
    },

    async getGrant(id: string): Promise<McpGrantRow | undefined> {
      return db<McpGrantRow>('mcp_grants').where({ id }).first();
    },
    /** The user's sign-ins that are still alive at `now`, newest first. */
    async listActiveGrants(userId: string, now: string): Promise<McpGrantWithClient[]> {
      return db('mcp_grants')
        .leftJoin('mcp_clients', 'mcp_clients.client_id', 'mcp_grants.client_id')
        .where('mcp_grants.user_id', userId)
        .whereNull('mcp_grants.revoked_at')
        .where('mcp_grants.expires_at', '>', now)
        .orderBy([
          { column: 'mcp_grants.created_at', order: 'desc' },
          { column: 'mcp_grants.id', order: 'asc' },
        ])
        .select('mcp_grants.*', 'mcp_clients.metadata as client_metadata');
    },
    /** Ends a sign-in: the grant and every access token issued from it (its refresh tokens die with the grant). */
    async revokeGrant(id: string, at: string): Promise<boolean> {
      return db.transaction((trx) => revokeGrantIn(trx, id, at));
    },
    async touchGrant(id: string, at: string): Promise<void> {
      await db('mcp_grants').where({ id }).update({ last_used_at: at });
    },

    async getRefreshToken(tokenHash: string): Promise<RefreshTokenRow | undefined> {
      return db<RefreshTokenRow>('refresh_tokens').where({ token_hash: tokenHash }).first();
    },
    /**
     * Spends a refresh token and stores its successors in one transaction: false when it was
     * already spent, in which case nothing is created.
     */
    async rotateRefreshToken(
      tokenHash: string,
      issued: IssuedTokens,
      at: string,
      reissue: string,
    ): Promise<boolean> {
      return db.transaction(async (trx) => {
        const n = await trx('refresh_tokens')
          .where({ token_hash: tokenHash })
          .whereNull('used_at')
          .update({ used_at: at, reissue });
        if (n === 0) return false;
        await insertTokens(trx, issued, at);
        return true;
      });
    },
  };
}
export type McpAuthRepo = ReturnType<typeof mcpAuthRepo>;
