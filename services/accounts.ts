import { inTransaction, type Repos } from '../db/repos/index.ts';
import type { McpGrantRow } from '../db/repos/mcp-auth.ts';
import type { AccessTokenRow, ApplicationRow, CreationBudget, CreationOutcome } from '../db/repos/tokens.ts';
import { type Actor, record } from './changes.ts';

/**
 * The credential writes of the account page and the command line, each with its change-log row in its
 * transaction. No change event: the feed and the webhooks carry portfolio data, and announcing every
 * token to every reader of them would say more about a firm's access than they need.
 */
function logged<T>(
  repos: Repos,
  actor: Actor,
  row: { firm_id: string; id: string },
  action: 'create' | 'update',
  entity: string,
  changes: Record<string, unknown>,
  write: (repos: Repos) => Promise<T>,
  at: string,
): Promise<T> {
  return inTransaction(repos, async (trx) => {
    const result = await write(trx);
    // A refused creation or a revocation of what was already revoked wrote nothing to log.
    if (result === false || (typeof result === 'string' && result !== 'created')) return result;
    await record(
      { repos: trx, firmId: row.firm_id, actor, at },
      { change: { entity, entityId: row.id, action, changes } },
    );
    return result;
  });
}

/** Stores an OAuth application within the user's limits (its secret only as a hash, never logged). */
export async function insertApplication(
  repos: Repos,
  actor: Actor,
  row: ApplicationRow,
  maxActive: number,
  budget: CreationBudget,
): Promise<CreationOutcome> {
  const changes = { name: row.name, client_id: row.client_id, user_id: row.user_id };
  return logged(
    repos,
    actor,
    row,
    'create',
    'oauth_applications',
    changes,
    (trx) => trx.applications.insertWithin(row, maxActive, budget),
    row.created_at,
  );
}

/** Revokes an application and every token issued to it. */
export async function revokeApplication(repos: Repos, actor: Actor, app: ApplicationRow, at: string) {
  await logged(
    repos,
    actor,
    app,
    'update',
    'oauth_applications',
    { revoked_at: at },
    (trx) => trx.applications.revoke(app.id, at),
    at,
  );
}

/** Stores a personal access token within the user's creation budget (the token only as its hash). */
export async function insertPersonalToken(
  repos: Repos,
  actor: Actor,
  row: AccessTokenRow,
  budget: CreationBudget,
): Promise<CreationOutcome> {
  const changes = { kind: row.kind, name: row.name, user_id: row.user_id, expires_at: row.expires_at };
  return logged(
    repos,
    actor,
    row,
    'create',
    'access_tokens',
    changes,
    (trx) => trx.tokens.insertPersonalWithin(row, budget),
    row.created_at,
  );
}

export async function revokePersonalToken(
  repos: Repos,
  actor: Actor,
  token: Pick<AccessTokenRow, 'id' | 'firm_id'>,
  at: string,
) {
  await logged(
    repos,
    actor,
    token,
    'update',
    'access_tokens',
    { revoked_at: at },
    (trx) => trx.tokens.revoke(token.id, at),
    at,
  );
}

/** Revokes a user's connection of an MCP client, and its tokens. */
export async function revokeGrant(repos: Repos, actor: Actor, grant: McpGrantRow, at: string) {
  await logged(
    repos,
    actor,
    grant,
    'update',
    'mcp_grants',
    { revoked_at: at },
    (trx) => trx.mcpAuth.revokeGrant(grant.id, at),
    at,
  );
}
