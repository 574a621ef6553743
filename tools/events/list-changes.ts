import { z } from 'zod';
import type { EventRow } from '../../db/repos/events.ts';
import { DOCUMENT_EVENT_TYPES, EVENT_TYPES } from '../../services/event-types.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { InvalidInput } from '../errors.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { MAX_PER_PAGE } from '../schemas/page.ts';

/** A cursor is the position of an event in its firm's commit order, opaque to the caller. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`e1:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^e1:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) {
    throw InvalidInput.field(
      'after',
      'is not a cursor of this feed; pass next_cursor of an earlier answer as it is',
    );
  }
  return Number(match[1]);
}

/** The types asked for: repeated and/or comma-separated; an unknown one is a 400 naming `types`. */
function typesOf(given: readonly string[] | undefined): string[] | undefined {
  const types = given
    ?.flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (!types?.length) return undefined;
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw InvalidInput.field(
      'types',
      `unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}; one of ${EVENT_TYPES.join(', ')}`,
    );
  }
  return types;
}

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

function instant(since: string): string {
  const at = new Date(since);
  if (!DATE_TIME.test(since) || Number.isNaN(at.getTime())) {
    throw InvalidInput.field(
      'since',
      'must be an ISO 8601 date-time with its offset, such as 2026-06-01T00:00:00Z',
    );
  }
  return at.toISOString();
}

const Event = z.object({
  id: z.string(),
  type: z.string().describe('company.created, metric.updated, note.created …'),
  occurred_at: z.string().describe('ISO 8601 UTC.'),
  actor: z.object({
    type: z
      .enum(['user', 'application', 'system', 'contact'])
      .describe(
        "system: the importer, the parser or the command line; contact: a company's contact answering an information request.",
      ),
    id: z.string().nullable(),
  }),
  company_id: z.string().nullable(),
  data: z
    .record(z.string(), z.unknown())
    .describe(
      'The record as it now is; metric events: category, cadence, count and date range of the write.',
    ),
  cursor: z.string().describe('Resume after this event.'),
});

function toEvent(row: EventRow) {
  return {
    id: row.id,
    type: row.type,
    occurred_at: row.occurred_at,
    actor: { type: row.actor_type, id: row.actor_id },
    company_id: row.company_id,
    data: row.data,
    cursor: encodeCursor(row.seq),
  };
}

export const listChanges = defineTool({
  name: 'list_changes',
  title: 'List changes',
  description:
    'What changed (companies, metrics, notes, documents, cap table), oldest first: a metric write is one ' +
    'event per company, category and cadence with its count and dates. Start at since or after (next_cursor).',
  input: z.object({
    after: z.string().min(1).optional().describe('next_cursor of a previous answer: only later events.'),
    since: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Only events at or after this ISO 8601 date-time.'),
    types: z.array(z.string()).optional().describe('Event types (or one comma-separated list).'),
    company_id: z.string().min(1).optional().describe('Only events of this company (list_companies).'),
    per_page: z.number().int().min(1).max(MAX_PER_PAGE).default(MAX_PER_PAGE),
  }),
  output: z.object({
    results: z.array(Event),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as after for the next events; null when there were none.'),
    has_more: z.boolean().describe('True when more events follow at once.'),
  }),
  annotations: readOnly,
  routes: [
    { method: 'GET', path: '/v1/events/', summary: 'List change events in commit order', rename: restPaging },
  ],
  async handler(ctx, input) {
    const { principal } = ctx;
    const afterSeq = input.after === undefined ? undefined : decodeCursor(input.after);
    const types = typesOf(input.types);
    const company = input.company_id
      ? await resolveCompany(ctx, { company_id: input.company_id })
      : undefined;
    const rows = await ctx.repos.events.list(principal.firm.id, {
      afterSeq,
      types,
      excludeTypes: principal.user.can_view_documents ? undefined : DOCUMENT_EVENT_TYPES,
      since: input.since === undefined ? undefined : instant(input.since),
      companyId: company?.id,
      // A user limited to some companies sees their events only, never firm-wide ones.
      companyIds: principal.scope.companyIds ?? undefined,
      limit: input.per_page + 1,
    });
    const page = rows.slice(0, input.per_page);
    const last = page[page.length - 1];
    return {
      results: page.map(toEvent),
      next_cursor: last ? encodeCursor(last.seq) : (input.after ?? null),
      has_more: rows.length > input.per_page,
    };
  },
});
