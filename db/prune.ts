import type { Knex } from 'knex';
import { eventsRepo } from './repos/events.ts';
import { mailRepo } from './repos/mail.ts';
import { mcpAuthRepo } from './repos/mcp-auth.ts';

/** How long each kind of row outlives its use; a row older than this is of no use to anyone. */
export interface PruneWindows {
  /** Idempotency keys are answered again for this long (rest/ owns the value). */
  idempotencyTtlMs: number;
  /** A registered client that has not signed in within this long is abandoned. */
  abandonedClientMs: number;
  /** A revoked sign-in is kept this long, so a replayed refresh token is still recognised as reuse. */
  revokedGrantMs: number;
  /** Change events are kept this long (EVENTS_RETENTION_DAYS); a feed reader must catch up within it. */
  eventsRetentionMs: number;
  /** Sent and failed mail is kept this long (MAIL_RETENTION_DAYS); held and pending mail is never pruned. */
  mailRetentionMs: number;
}

export const DEFAULT_PRUNE_WINDOWS: PruneWindows = {
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  abandonedClientMs: 24 * 60 * 60 * 1000,
  revokedGrantMs: 24 * 60 * 60 * 1000,
  eventsRetentionMs: 90 * 24 * 60 * 60 * 1000,
  mailRetentionMs: 30 * 24 * 60 * 60 * 1000,
};

/** Rows deleted, per table. */
export interface PruneResult {
  authorization_codes: number;
  web_sessions: number;
  access_tokens: number;
  mcp_grants: number;
  refresh_tokens: number;
  idempotency_keys: number;
  mcp_clients: number;
  events: number;
  outbound_mail: number;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms).toISOString();

/**
 * Deletes what can no longer be used: expired authorization codes, sessions and tokens, ended
 * sign-ins with their refresh tokens, expired idempotency keys, registered clients that never
 * signed in, change events past their retention, and sent or failed mail past its own. One transaction, so a prune that fails leaves everything as it was.
 */
export async function pruneExpired(
  db: Knex,
  now: Date,
  windows: PruneWindows = DEFAULT_PRUNE_WINDOWS,
): Promise<PruneResult> {
  const at = now.toISOString();
  return db.transaction(async (trx) => {
    const endedGrants = trx('mcp_grants')
      .where('expires_at', '<', at)
      .orWhere('revoked_at', '<', before(now, windows.revokedGrantMs))
      .select('id');
    // Counted before the grants go, since the cascade deletes them without a count.
    const refresh_tokens = await trx('refresh_tokens').whereIn('grant_id', endedGrants.clone()).delete();
    const grantTokens = await trx('access_tokens').whereIn('grant_id', endedGrants.clone()).delete();
    const mcp_grants = await trx('mcp_grants').whereIn('id', endedGrants.clone()).delete();
    const access_tokens = grantTokens + (await trx('access_tokens').where('expires_at', '<', at).delete());
    const authorization_codes = await trx('authorization_codes').where('expires_at', '<', at).delete();
    const web_sessions = await trx('web_sessions').where('expires_at', '<', at).delete();
    const idempotency_keys = await trx('idempotency_keys')
      .where('created_at', '<', before(now, windows.idempotencyTtlMs))
      .delete();
    const mcp_clients = await mcpAuthRepo(trx).deleteAbandonedClients(before(now, windows.abandonedClientMs));
    const events = await eventsRepo(trx).prune(before(now, windows.eventsRetentionMs));
    const outbound_mail = await mailRepo(trx).prune(before(now, windows.mailRetentionMs));
    return {
      events,
      outbound_mail,
      authorization_codes,
      web_sessions,
      access_tokens,
      mcp_grants,
      refresh_tokens,
      idempotency_keys,
      mcp_clients,
    };
  });
}
