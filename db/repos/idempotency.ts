import type { Knex } from 'knex';

export interface IdempotencyRow {
  principal: string;
  key: string;
  request_hash: string;
  /** Null while the first request is still running. */
  status_code: number | null;
  response_body: string | null;
  created_at: string;
}

export type Claim = { claimed: true } | { claimed: false; existing: IdempotencyRow };

/** Idempotency keys of write requests, one row per (principal, key). */
export function idempotencyRepo(db: Knex) {
  async function get(principal: string, key: string): Promise<IdempotencyRow | undefined> {
    const row = (await db('idempotency_keys').where({ principal, key }).first()) as
      | IdempotencyRow
      | undefined;
    return row && { ...row, status_code: row.status_code === null ? null : Number(row.status_code) };
  }

  return {
    get,

    /**
     * Claims a key for a request, or returns the row that already holds it. Rows created before
     * `expiredBefore`, and unanswered claims made before `abandonedBefore`, no longer count and are
     * deleted first. The primary key decides between
     * concurrent claims: exactly one insert succeeds.
     */
    async claim(
      principal: string,
      key: string,
      requestHash: string,
      at: string,
      expiredBefore: string,
      abandonedBefore: string,
    ): Promise<Claim> {
      await db('idempotency_keys').where({ principal }).where('created_at', '<', expiredBefore).delete();
      // A claim still unanswered long after every request has timed out belongs to a process that died.
      await db('idempotency_keys')
        .where({ principal, key })
        .whereNull('status_code')
        .where('created_at', '<', abandonedBefore)
        .delete();
      // A holder can finish with an error and free the key between our insert and our read: retry then.
      for (;;) {
        const inserted = await db('idempotency_keys')
          .insert({
            principal,
            key,
            request_hash: requestHash,
            status_code: null,
            response_body: null,
            created_at: at,
          })
          .onConflict(['principal', 'key'])
          .ignore()
          .returning('key');
        if (inserted.length > 0) return { claimed: true };
        const existing = await get(principal, key);
        if (existing) return { claimed: false, existing };
      }
    },

    /** Stores the final response of the request that holds the claim. */
    async complete(principal: string, key: string, statusCode: number, responseBody: string): Promise<void> {
      await db('idempotency_keys')
        .where({ principal, key })
        .update({ status_code: statusCode, response_body: responseBody });
    },

    /** Gives a claim up (the request failed unexpectedly), so a retry can run. */
    async release(principal: string, key: string): Promise<void> {
      await db('idempotency_keys').where({ principal, key }).whereNull('status_code').delete();
    },
  };
}
export type IdempotencyRepo = ReturnType<typeof idempotencyRepo>;
