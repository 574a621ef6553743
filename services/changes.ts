import type { Clock } from '../core/clock.ts';
import { companyNotFound, throwIfUnknownCompany } from '../core/errors.ts';
import type { Principal, Scope } from '../core/principal.ts';
import type { ChangeAction } from '../db/repos/change-log.ts';
import type { CompanyRow } from '../db/repos/companies.ts';
import type { ActorType, NewEvent } from '../db/repos/events.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';
import type { ReadRepos } from '../db/repos/read.ts';
import { writable } from '../db/repos/writable.ts';

/** Who makes a change: the user, the application acting for its creator, the service (import, CLI), or a contact. */
export interface Actor {
  type: ActorType;
  /** The user's or application's id; null for the service itself. */
  id: string | null;
  /** The user recorded in the change log and metric history; null for a firm-wide change by the service. */
  userId: string | null;
}

/** The service itself: the importer and the command line. */
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, userId: null };

export function actorOf(principal: Principal): Actor {
  // A contact has no account: the change log names no user, the event names the contact.
  if (principal.kind === 'contact' && principal.contact) {
    return { type: 'contact', id: principal.contact.id, userId: null };
  }
  if (principal.kind === 'application') {
    return { type: 'application', id: principal.key.slice('app:'.length), userId: principal.user.id };
  }
  return { type: 'user', id: principal.user.id, userId: principal.user.id };
}

/** What a domain service needs: the repositories, the clock, and whose change it is over what. */
export interface ServiceContext {
  /** A caller's repositories, as a tool holds them; a service writes through `writable` of them. */
  repos: ReadRepos;
  clock: Clock;
  principal: Principal;
  /** Who the change log and events name, when not the principal (the service acting on a firm's setting). */
  actor?: Actor;
}

/** One write's record: the change-log row (when the record has one) and its change event. */
export interface Recorded {
  change?: {
    entity: string;
    entityId: string;
    action: ChangeAction;
    changes?: Record<string, unknown>;
  };
  event?: {
    type: string;
    companyId: string | null;
    resourceType: string;
    resourceId: string | null;
    data: Record<string, unknown>;
  };
}

/** Where and by whom a write is recorded; `repos` must be bound to the write's transaction. */
export interface Recorder {
  repos: Repos;
  firmId: string;
  actor: Actor;
  at: string;
}

/**
 * Writes the change-log rows and the events of one write, in the write's own transaction: the
 * transactional outbox, so an event exists exactly when its change committed.
 */
export async function record(r: Recorder, ...items: Recorded[]): Promise<void> {
  await r.repos.changeLog.record(
    ...items.flatMap(({ change }) =>
      change ? [{ firmId: r.firmId, changedBy: r.actor.userId, changedAt: r.at, ...change }] : [],
    ),
  );
  await r.repos.events.append(
    ...items.flatMap(({ event }): NewEvent[] =>
      event
        ? [
            {
              firmId: r.firmId,
              actorType: r.actor.type,
              actorId: r.actor.id,
              occurredAt: r.at,
              ...event,
            },
          ]
        : [],
    ),
  );
}

/** Runs `fn` in a transaction (a savepoint inside a REST write's) with a recorder bound to it. */
export function withRecorder<T>(
  ctx: ServiceContext,
  fn: (repos: Repos, recorder: Recorder) => Promise<T>,
  at = ctx.clock.now().toISOString(),
): Promise<T> {
  return inTransaction(writable(ctx.repos), (repos) =>
    fn(repos, { repos, firmId: ctx.principal.firm.id, actor: ctx.actor ?? actorOf(ctx.principal), at }),
  );
}

export function scopeOf(ctx: ServiceContext): Scope {
  return ctx.principal.scope;
}

/**
 * The company a write touches, when the caller may see it: another firm's, or one outside a limited
 * user's list, is a 404 naming `field`, as a read of it is.
 */
export async function writableCompany(ctx: ServiceContext, id: string, field: string): Promise<CompanyRow> {
  const company = (await ctx.repos.companies.names(ctx.principal.scope, [id])).get(id);
  if (!company) throwIfUnknownCompany([companyNotFound(field, id)]);
  return company!;
}
