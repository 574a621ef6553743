import type { Knex } from 'knex';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';

/** Every event type, in the list of an endpoint that takes them all. */
export const ALL_EVENT_TYPES = '*';

export interface EndpointRow {
  id: string;
  firm_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  company_ids: string[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  cursor_seq: number;
  consecutive_failures: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  firm_id: string;
  event_id: string;
  event_type: string;
  event_seq: number | null;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  claim: string | null;
  claimed_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  replay_of: string | null;
  created_at: string;
}

/** A delivery a node holds for the length of its lease. */
export interface ClaimedDelivery {
  id: string;
  claim: string;
  attempts: number;
  endpoint_id: string;
  event_id: string;
  payload: string;
  url: string;
  secrets: string[];
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: string;
  /** When to try again; null when the attempts are used up. */
  retryAt: string | null;
}

export interface NewEndpoint {
  firmId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  companyIds: string[] | null;
  secret: string;
  createdBy: string | null;
  now: string;
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  companyIds?: string[] | null;
  enabled?: boolean;
}

/** An outbox event as the fan-out reads it. */
interface OutboxEvent {
  seq: number | string;
  id: string;
  type: string;
  company_id: string | null;
  actor_type: string;
  actor_id: string | null;
  occurred_at: string;
  data: string;
}

type RawEndpoint = Omit<EndpointRow, 'event_types' | 'company_ids' | 'enabled' | 'cursor_seq'> & {
  event_types: string;
  company_ids: string | null;
  enabled: boolean | number;
  cursor_seq: number | string;
};

function toEndpoint(r: RawEndpoint): EndpointRow {
  return {
    ...r,
    event_types: JSON.parse(r.event_types),
    company_ids: r.company_ids === null ? null : JSON.parse(r.company_ids),
    enabled: Boolean(r.enabled),
    cursor_seq: Number(r.cursor_seq),
  };
}

function toDelivery(r: DeliveryRow & { event_seq: number | string | null }): DeliveryRow {
  return { ...r, event_seq: r.event_seq === null ? null : Number(r.event_seq) };
}

/** Changes of the endpoints themselves (webhook.created …): in the change feed, never delivered. */
export const UNDELIVERED_EVENT_PREFIX = 'webhook.';

/** Whether an endpoint takes an event: its type among the endpoint's, its company among the filter's. */
export function matches(endpoint: Pick<EndpointRow, 'event_types' | 'company_ids'>, event: OutboxEventLike) {
  // An endpoint's own registration or rotation would otherwise be sent to it, and to every other one.
  if (event.type.startsWith(UNDELIVERED_EVENT_PREFIX)) return false;
  const typeOk = endpoint.event_types.includes(ALL_EVENT_TYPES) || endpoint.event_types.includes(event.type);
  const companyOk =
    endpoint.company_ids === null ||
    (event.company_id !== null && endpoint.company_ids.includes(event.company_id));
  return typeOk && companyOk;
}
interface OutboxEventLike {
  type: string;
  company_id: string | null;
}

/** The Standard Webhooks body of an outbox event: `{type, timestamp, data: <the event>}`. */
export function payloadOf(event: Omit<OutboxEvent, 'seq' | 'data'> & { data: unknown }): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.occurred_at,
    data: {
      id: event.id,
      type: event.type,
      occurred_at: event.occurred_at,
      actor: { type: event.actor_type, id: event.actor_id },
      company_id: event.company_id,
      data: event.data,
    },
  });
}

/** The highest outbox sequence number of a firm (0 without events). */
async function lastSeq(db: Knex, firmId: string): Promise<number> {
  const row = (await db('events').where('firm_id', firmId).max({ seq: 'seq' }).first()) as
    | { seq: number | string | null }
    | undefined;
  return Number(row?.seq ?? 0);
}

/** Webhook endpoints, the fan-out of the outbox into deliveries, and the delivery queue. */
export function webhooksRepo(db: Knex) {
  const endpoints = () => db('webhook_endpoints');
  const deliveries = () => db('webhook_deliveries');

  return {
    /** A new endpoint receives the events committed after it was created. */
    async createEndpoint(e: NewEndpoint): Promise<EndpointRow> {
      const id = newId();
      await db.transaction(async (trx) => {
        await trx('webhook_endpoints').insert({
          id,
          firm_id: e.firmId,
          url: e.url,
          description: e.description,
          event_types: JSON.stringify(e.eventTypes),
          company_ids: e.companyIds === null ? null : JSON.stringify(e.companyIds),
          secret: e.secret,
          enabled: true,
          cursor_seq: await lastSeq(trx, e.firmId),
          created_by: e.createdBy,
          created_at: e.now,
          updated_at: e.now,
        });
      });
      return (await this.getEndpoint(e.firmId, id))!;
    },

    async listEndpoints(firmId: string): Promise<EndpointRow[]> {
      const rows = (await endpoints()
        .where('firm_id', firmId)
        .orderBy('created_at')
        .orderBy('id')) as RawEndpoint[];
      return rows.map(toEndpoint);
    },

    async getEndpoint(firmId: string, id: string): Promise<EndpointRow | undefined> {
      const row = (await endpoints().where({ firm_id: firmId, id }).first()) as RawEndpoint | undefined;
      return row && toEndpoint(row);
    },

    /** Enabling again clears the reason it was disabled and the failure count. */
    async updateEndpoint(firmId: string, id: string, c: EndpointChanges, now: string): Promise<boolean> {
      const patch: Record<string, unknown> = { updated_at: now };
      if (c.url !== undefined) patch.url = c.url;
      if (c.description !== undefined) patch.description = c.description;
      if (c.eventTypes !== undefined) patch.event_types = JSON.stringify(c.eventTypes);
      if (c.companyIds !== undefined)
        patch.company_ids = c.companyIds === null ? null : JSON.stringify(c.companyIds);
      if (c.enabled === true)
        Object.assign(patch, {
          enabled: true,
          disabled_reason: null,
          disabled_at: null,
          consecutive_failures: 0,
        });
      if (c.enabled === false)
        Object.assign(patch, { enabled: false, disabled_reason: 'disabled by a user', disabled_at: now });
      return (await endpoints().where({ firm_id: firmId, id }).update(patch)) > 0;
    },

    async deleteEndpoint(firmId: string, id: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        await trx('webhook_deliveries').where({ firm_id: firmId, endpoint_id: id }).delete();
        return (await trx('webhook_endpoints').where({ firm_id: firmId, id }).delete()) > 0;
      });
    },

    /** A new secret signs from now on; the old one also signs until `previousUntil`. */
    async rotateSecret(firmId: string, id: string, secret: string, previousUntil: string, now: string) {
      return db.transaction(async (trx) => {
        const row = (await trx('webhook_endpoints').where({ firm_id: firmId, id }).first('secret')) as
          | { secret: string }
          | undefined;
        if (!row) return false;
        await trx('webhook_endpoints').where({ id }).update({
          secret,
          previous_secret: row.secret,
          previous_secret_until: previousUntil,
          updated_at: now,
        });
        return true;
      });
    },

    /** Queues one delivery of a body that is not in the outbox (a test event, a replay). */
    async enqueue(d: {
      endpointId: string;
      firmId: string;
      eventId: string;
      eventType: string;
      eventSeq: number | null;
      payload: string;
      replayOf: string | null;
      now: string;
    }): Promise<DeliveryRow> {
      const id = newId();
      await deliveries().insert({
        id,
        endpoint_id: d.endpointId,
        firm_id: d.firmId,
        event_id: d.eventId,
        event_type: d.eventType,
        event_seq: d.eventSeq,
        payload: d.payload,
        status: 'pending',
        attempts: 0,
        next_attempt_at: d.now,
        replay_of: d.replayOf,
        created_at: d.now,
      });
      return (await this.getDelivery(d.firmId, id))!;
    },

    async getDelivery(firmId: string, id: string): Promise<DeliveryRow | undefined> {
      const row = await deliveries().where({ firm_id: firmId, id }).first();
      return row && toDelivery(row);
    },

    /** An endpoint's deliveries, newest first. */
    async listDeliveries(firmId: string, endpointId: string, limit: number): Promise<DeliveryRow[]> {
      const rows = await deliveries()
        .where({ firm_id: firmId, endpoint_id: endpointId })
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit);
      return rows.map(toDelivery);
    },

    /** Enabled endpoints whose firm has events past their cursor. */
    async endpointsBehind(): Promise<string[]> {
      const rows = (await endpoints()
        .where('enabled', true)
        .whereExists(
          db('events')
            .whereRaw('events.firm_id = webhook_endpoints.firm_id')
            .whereRaw('events.seq > webhook_endpoints.cursor_seq')
            .select(db.raw('1')),
        )
        .select('id')) as { id: string }[];
      return rows.map((r) => r.id);
    },

    /**
     * Moves one endpoint's cursor over the next `limit` events of its firm, queueing a delivery for each
     * that matches, in one transaction. The endpoint row is locked (PostgreSQL; SQLite has one writer),
     * so two nodes never fan the same events out twice; a node that finds it locked skips it.
     */
    /** The number of events read (0 when none was left, or another node holds the endpoint). */
    async fanOut(endpointId: string, now: string, limit = 500): Promise<number> {
      return db.transaction(async (trx) => {
        const q = trx('webhook_endpoints').where({ id: endpointId, enabled: true });
        if (isPostgres(trx)) q.forUpdate().skipLocked();
        const raw = (await q.first()) as RawEndpoint | undefined;
        if (!raw) return 0;
        const endpoint = toEndpoint(raw);
        const events = (await trx('events')
          .where('firm_id', endpoint.firm_id)
          .where('seq', '>', endpoint.cursor_seq)
          .orderBy('seq')
          .limit(limit)
          .select(
            'seq',
            'id',
            'type',
            'company_id',
            'actor_type',
            'actor_id',
            'occurred_at',
            'data',
          )) as OutboxEvent[];
        if (events.length === 0) return 0;
        const rows = events
          .filter((e) => matches(endpoint, e))
          .map((e) => ({
            id: newId(),
            endpoint_id: endpoint.id,
            firm_id: endpoint.firm_id,
            event_id: e.id,
            event_type: e.type,
            event_seq: Number(e.seq),
            payload: payloadOf({ ...e, data: JSON.parse(e.data) }),
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            created_at: now,
          }));
        for (let i = 0; i < rows.length; i += 200)
          await trx('webhook_deliveries').insert(rows.slice(i, i + 200));
        await trx('webhook_endpoints')
          .where({ id: endpoint.id })
          .update({ cursor_seq: Number(events[events.length - 1]!.seq) });
        return events.length;
      });
    },

    /**
     * Claims due deliveries of enabled endpoints for `leaseMs`, counting an attempt. On PostgreSQL the
     * rows are locked with SKIP LOCKED so nodes take different ones; a claim whose lease ran out (its node
     * died mid-delivery) is due again.
     */
    async claim(options: { now: Date; leaseMs: number; limit: number }): Promise<ClaimedDelivery[]> {
      const at = options.now.toISOString();
      const until = new Date(options.now.getTime() + options.leaseMs).toISOString();
      return db.transaction(async (trx) => {
        const pick = trx('webhook_deliveries')
          .join('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
          .where('webhook_deliveries.status', 'pending')
          .where('webhook_deliveries.next_attempt_at', '<=', at)
          .where((w) =>
            w
              .whereNull('webhook_deliveries.claimed_until')
              .orWhere('webhook_deliveries.claimed_until', '<', at),
          )
          .where('webhook_endpoints.enabled', true)
          .orderBy('webhook_deliveries.next_attempt_at')
          .limit(options.limit)
          .select(
            'webhook_deliveries.id',
            'webhook_deliveries.attempts',
            'webhook_deliveries.endpoint_id',
            'webhook_deliveries.event_id',
            'webhook_deliveries.payload',
            'webhook_endpoints.url',
            'webhook_endpoints.secret',
            'webhook_endpoints.previous_secret',
            'webhook_endpoints.previous_secret_until',
          );
        if (isPostgres(trx)) pick.forUpdate('webhook_deliveries').skipLocked();
        const rows = (await pick) as {
          id: string;
          attempts: number;
          endpoint_id: string;
          event_id: string;
          payload: string;
          url: string;
          secret: string;
          previous_secret: string | null;
          previous_secret_until: string | null;
        }[];
        const claimed: ClaimedDelivery[] = [];
        for (const r of rows) {
          const claim = newId();
          await trx('webhook_deliveries')
            .where({ id: r.id })
            .update({ claim, claimed_until: until, attempts: r.attempts + 1 });
          const secrets = [r.secret];
          if (r.previous_secret && r.previous_secret_until && r.previous_secret_until > at)
            secrets.push(r.previous_secret);
          claimed.push({
            id: r.id,
            claim,
            attempts: r.attempts + 1,
            endpoint_id: r.endpoint_id,
            event_id: r.event_id,
            payload: r.payload,
            url: r.url,
            secrets,
          });
        }
        return claimed;
      });
    },

    /**
     * Records an attempt's outcome while the claim is still held (false otherwise: the lease ran out and
     * another node took the delivery). A delivery out of attempts fails and disables its endpoint with
     * `disableReason`.
     */
    async finish(d: ClaimedDelivery, o: AttemptOutcome, disableReason: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        const status: DeliveryStatus = o.ok ? 'delivered' : o.retryAt === null ? 'failed' : 'pending';
        const updated = await trx('webhook_deliveries')
          .where({ id: d.id, claim: d.claim })
          .update({
            status,
            claim: null,
            claimed_until: null,
            next_attempt_at: o.retryAt ?? o.at,
            last_attempt_at: o.at,
            last_status_code: o.statusCode,
            last_error: o.error,
            last_duration_ms: o.durationMs,
          });
        if (updated === 0) return false;
        const failures = trx.raw('consecutive_failures + 1');
        const endpoint = trx('webhook_endpoints').where({ id: d.endpoint_id });
        if (o.ok) await endpoint.update({ consecutive_failures: 0 });
        else if (status === 'failed')
          await endpoint.update({
            consecutive_failures: failures,
            enabled: false,
            disabled_reason: disableReason,
            disabled_at: o.at,
          });
        else await endpoint.update({ consecutive_failures: failures });
        return true;
      });
    },

    /** For /metrics: seconds the oldest due delivery or not yet fanned-out event has waited, and disabled endpoints. */
    async backlog(now: Date): Promise<{ lagSeconds: number; disabledEndpoints: number }> {
      const at = now.toISOString();
      const due = (await deliveries()
        .join('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
        .where('webhook_endpoints.enabled', true)
        .where('webhook_deliveries.status', 'pending')
        .where('webhook_deliveries.next_attempt_at', '<=', at)
        .min({ oldest: 'webhook_deliveries.next_attempt_at' })
        .first()) as { oldest: string | null } | undefined;
      const unread = (await db('events')
        .join('webhook_endpoints', 'webhook_endpoints.firm_id', 'events.firm_id')
        .where('webhook_endpoints.enabled', true)
        .whereRaw('events.seq > webhook_endpoints.cursor_seq')
        .min({ oldest: 'events.occurred_at' })
        .first()) as { oldest: string | null } | undefined;
      const oldest = [due?.oldest, unread?.oldest].filter((v): v is string => Boolean(v)).sort()[0];
      const disabled = (await endpoints().where('enabled', false).count({ n: '*' }).first()) as
        | { n: number | string }
        | undefined;
      return {
        lagSeconds: oldest ? Math.max(0, (now.getTime() - Date.parse(oldest)) / 1000) : 0,
        disabledEndpoints: Number(disabled?.n ?? 0),
      };
    },
  };
}
export type WebhooksRepo = ReturnType<typeof webhooksRepo>;
