import type { Knex } from 'knex';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';

/**
 * Who made a change: a user, a firm-wide application, the service itself (import, alerts), or a
 * company's contact answering an information request through a private link.
 */
export type ActorType = 'user' | 'application' | 'system' | 'contact';

/** One change event to append; `data` is the resource as it now is (or its id and link when large). */
export interface NewEvent {
  firmId: string;
  type: string;
  companyId: string | null;
  actorType: ActorType;
  actorId: string | null;
  occurredAt: string;
  resourceType: string;
  resourceId: string | null;
  data: Record<string, unknown>;
}

export interface EventRow {
  seq: number;
  id: string;
  firm_id: string;
  type: string;
  company_id: string | null;
  actor_type: ActorType;
  actor_id: string | null;
  occurred_at: string;
  resource_type: string;
  resource_id: string | null;
  data: Record<string, unknown>;
}

export interface EventFilter {
  /** Only events after this sequence number (exclusive). */
  afterSeq?: number;
  types?: readonly string[];
  /** Types left out (those the reader may not see). */
  excludeTypes?: readonly string[];
  /** Only events that occurred at or after this instant (ISO 8601). */
  since?: string;
  companyId?: string;
  /** Only events of these companies (a user limited to some companies); firm-wide events have none. */
  companyIds?: readonly string[];
  limit: number;
}

/** A 63-bit key per firm for PostgreSQL's transaction-scoped advisory lock. */
const LOCK_SQL = "select pg_advisory_xact_lock(hashtextextended('events:' || ?, 0))";

/** The outbox of change events. `append` must run inside the transaction of the change it records. */
export function eventsRepo(db: Knex) {
  return {
    /**
     * Appends events in the caller's transaction. On PostgreSQL a firm's appends take turns on a lock
     * held until commit, so `seq` follows commit order within the firm; SQLite has one writer anyway.
     */
    async append(...events: NewEvent[]): Promise<string[]> {
      if (events.length === 0) return [];
      if (isPostgres(db)) {
        for (const firmId of [...new Set(events.map((e) => e.firmId))].sort())
          await db.raw(LOCK_SQL, [firmId]);
      }
      const rows = events.map((e) => ({
        id: newId(),
        firm_id: e.firmId,
        type: e.type,
        company_id: e.companyId,
        actor_type: e.actorType,
        actor_id: e.actorId,
        occurred_at: e.occurredAt,
        resource_type: e.resourceType,
        resource_id: e.resourceId,
        data: JSON.stringify(e.data),
      }));
      for (let i = 0; i < rows.length; i += 500) await db('events').insert(rows.slice(i, i + 500));
      return rows.map((r) => r.id);
    },

    /** A firm's events in commit order. */
    async list(firmId: string, filter: EventFilter): Promise<EventRow[]> {
      const q = db('events').where('firm_id', firmId);
      if (filter.afterSeq !== undefined) q.where('seq', '>', filter.afterSeq);
      if (filter.types?.length) q.whereIn('type', filter.types);
      if (filter.excludeTypes?.length) q.whereNotIn('type', filter.excludeTypes);
      if (filter.since) q.where('occurred_at', '>=', filter.since);
      if (filter.companyId) q.where('company_id', filter.companyId);
      if (filter.companyIds) q.whereIn('company_id', filter.companyIds);
      const rows = (await q.orderBy('seq').limit(filter.limit).select('*')) as (Omit<
        EventRow,
        'data' | 'seq'
      > & { seq: number | string; data: string })[];
      return rows.map((r) => ({ ...r, seq: Number(r.seq), data: JSON.parse(r.data) }));
    },

    /**
     * The newest `seq` of each company's events and of the firm-wide ones (no company), in one grouped
     * read of the (firm_id, company_id, seq) index: what a cache of a company's figures is checked against.
     */
    async latestSeqs(firmId: string): Promise<{ byCompany: Map<string, number>; firmWide: number }> {
      const rows = (await db('events')
        .where('firm_id', firmId)
        .groupBy('company_id')
        .select('company_id', db.raw('max(seq) as seq'))) as {
        company_id: string | null;
        seq: number | string;
      }[];
      const byCompany = new Map<string, number>();
      let firmWide = 0;
      for (const r of rows) {
        if (r.company_id === null) firmWide = Number(r.seq);
        else byCompany.set(r.company_id, Number(r.seq));
      }
      return { byCompany, firmWide };
    },

    /** Deletes events older than `before`; the number deleted. */
    async prune(before: string): Promise<number> {
      return db('events').where('occurred_at', '<', before).delete();
    },
  };
}
export type EventsRepo = ReturnType<typeof eventsRepo>;
