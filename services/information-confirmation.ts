import type { Repos } from '../db/repos/index.ts';
import type { ReportWithRequest } from '../db/repos/information-writes.ts';
import type { ServiceContext } from './changes.ts';
import { type FounderSession, founderLinkUrl } from './founder-links.ts';
import { mailValues } from './information-common.ts';
import { queueRequestMail } from './information-mail.ts';

/** Queues the confirmation of a submission to the contact who made it, with their link to change it. */
export async function queueConfirmation(
  ctx: ServiceContext & { repos: Repos; publicUrl: string },
  session: FounderSession,
  report: ReportWithRequest,
  submittedAt: string,
): Promise<void> {
  const { repos } = ctx;
  const row = await repos.information.getRequest(session.firm.id, report.information_request_id);
  if (!row) return;
  const items = await repos.information.requestedItems([row.id]);
  const owned = {
    row,
    companyIds: [report.company_id],
    documents: items.documents.get(row.id) ?? [],
    metrics: items.metrics.get(row.id) ?? [],
  };
  const names = {
    firmName: session.firm.name,
    companyName: session.company.name,
    contactName: session.contact.name,
  };
  await queueRequestMail(
    repos,
    [
      {
        firmId: session.firm.id,
        kind: 'confirmation',
        to: session.contact.email,
        toName: session.contact.name,
        values: { ...mailValues(owned, names, founderLinkUrl(ctx.publicUrl, session.token)), submittedAt },
        // One confirmation per submission that changed the report.
        dedupeKey: `confirmation:${report.id}:${session.contact.id}:${ctx.clock.now().toISOString()}`,
        reportId: report.id,
        requestId: row.id,
      },
    ],
    submittedAt,
  );
}
