import { principalForEmail } from '../../auth/local-principal.ts';
import type { Clock } from '../../core/clock.ts';
import type { Repos } from '../../db/repos/index.ts';
import { writable } from '../../db/repos/writable.ts';
import { createContact } from '../../services/contacts.ts';
import { mintLinks } from '../../services/founder-links.ts';
import type { LoopContext } from '../../services/information-common.ts';
import type { RequestInput } from '../../services/information-fields.ts';
import type { SaveContext } from '../../services/information-reports.ts';
import { createRequest } from '../../services/information-requests.ts';
import { sendRequest } from '../../services/information-sending.ts';

export const PUBLIC_URL = 'http://127.0.0.1:8000';

/** The write context of a user, as a tool gets it, for calling the loop's services directly. */
export async function contextOf(
  repos: Repos,
  clock: Clock,
  email: string,
): Promise<LoopContext & SaveContext> {
  return {
    repos,
    clock,
    principal: await principalForEmail(repos, email),
    publicUrl: PUBLIC_URL,
    documentStorageQuotaBytes: 100 * 1024 * 1024,
    founderLinkDaysAfterDue: 30,
  };
}

/** A quarter's request for revenue (required), cash in bank (optional) and a board deck (required). */
export function quarterRequest(companyIds: string[], extra: Partial<RequestInput> = {}): RequestInput {
  return {
    name: 'Q4 2025 update',
    period: '2025-Q4',
    period_start_date: '2025-10-01',
    period_end_date: '2025-12-31',
    due_date: '2026-01-31',
    company_ids: companyIds,
    metrics: [{ category: 'revenue' }, { category: 'cash_in_bank', optional: true }],
    documents: [{ name: 'Board deck' }],
    ...extra,
  };
}

/** Drafts and sends a request; its id and its reports by company id. */
export async function sentRequest(ctx: LoopContext, input: RequestInput) {
  const id = await createRequest(ctx, input);
  await sendRequest(ctx, id);
  const reports = await writable(ctx.repos).informationWrites.reportsOf(id);
  return { id, reportOf: new Map(reports.map((r) => [r.company_id, r.id])) };
}

/** Adds a contact to a company as the context's user. */
export function addContact(ctx: LoopContext, companyId: string, name: string, email: string) {
  return createContact(ctx, companyId, { name, email });
}

/** A fresh link for a contact to a report: what the request mail would carry. */
export async function linkFor(
  ctx: LoopContext,
  reportId: string,
  contactId: string,
  expiresAt = '2099-01-01T00:00:00.000Z',
) {
  const contact = (await writable(ctx.repos).db('company_contacts').where('id', contactId).first())!;
  const [link] = await mintLinks(
    writable(ctx.repos),
    { id: reportId, firm_id: ctx.principal.firm.id },
    [contact],
    {
      at: ctx.clock.now().toISOString(),
      expiresAt,
      publicUrl: PUBLIC_URL,
    },
  );
  return link!;
}
