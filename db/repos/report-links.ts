import type { Knex } from 'knex';
import { chunk } from './util.ts';

/** A founder's private link to one report: only the SHA-256 of its token is kept. */
export interface ReportLinkRow {
  id: string;
  firm_id: string;
  report_id: string;
  contact_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** A link with what checking it needs: its report, the report's request, and the contact. */
export interface LinkTarget extends ReportLinkRow {
  company_id: string;
  information_request_id: string;
  request_status: string;
  contact_name: string;
  contact_email: string;
}

/** A link as the firm sees it: never its token. */
export type ListedLink = Omit<ReportLinkRow, 'token_hash'> & { contact_name: string; contact_email: string };

/** Which links a revocation ends: one link, a contact's links on a report, or all of a report's. */
export interface LinkSelection {
  reportId: string;
  contactId?: string;
  linkId?: string;
}

export function reportLinksRepo(db: Knex) {
  const target = () =>
    db('information_report_links')
      .join('information_reports', 'information_reports.id', 'information_report_links.report_id')
      .join('information_requests', 'information_requests.id', 'information_reports.information_request_id')
      .join('company_contacts', 'company_contacts.id', 'information_report_links.contact_id')
      .select(
        'information_report_links.*',
        'information_reports.company_id',
        'information_reports.information_request_id',
        'information_requests.status as request_status',
        'company_contacts.name as contact_name',
        'company_contacts.email as contact_email',
      );
  return {
    async insert(rows: readonly ReportLinkRow[]): Promise<void> {
      for (const batch of chunk(rows, 500))
        if (batch.length > 0) await db('information_report_links').insert(batch);
    },
    /** The link whose token has this hash, with its report, request and contact. */
    async byHash(tokenHash: string): Promise<LinkTarget | undefined> {
      return (await target().where('information_report_links.token_hash', tokenHash).first()) as
        | LinkTarget
        | undefined;
    },
    /** One link as `byHash` answers it, read again (inside a write, to check it still holds). */
    async byId(id: string): Promise<LinkTarget | undefined> {
      return (await target().where('information_report_links.id', id).first()) as LinkTarget | undefined;
    },
    async touch(id: string, at: string): Promise<void> {
      await db('information_report_links').where({ id }).update({ last_used_at: at });
    },
    /** Revokes the live links of a selection; the ids revoked. */
    async revoke(selection: LinkSelection, at: string): Promise<string[]> {
      const q = db('information_report_links').where('report_id', selection.reportId).whereNull('revoked_at');
      if (selection.contactId) q.where('contact_id', selection.contactId);
      if (selection.linkId) q.where('id', selection.linkId);
      const ids = (await q.clone().pluck('id')) as string[];
      if (ids.length > 0) await db('information_report_links').whereIn('id', ids).update({ revoked_at: at });
      return ids;
    },
    /** A report's links, newest first, with their contact. */
    async ofReport(reportId: string): Promise<ListedLink[]> {
      return (await db('information_report_links')
        .join('company_contacts', 'company_contacts.id', 'information_report_links.contact_id')
        .where('information_report_links.report_id', reportId)
        .orderBy([
          { column: 'information_report_links.created_at', order: 'desc' },
          { column: 'information_report_links.id' },
        ])
        .select(
          'information_report_links.id',
          'information_report_links.firm_id',
          'information_report_links.report_id',
          'information_report_links.contact_id',
          'information_report_links.created_at',
          'information_report_links.expires_at',
          'information_report_links.revoked_at',
          'information_report_links.last_used_at',
          'company_contacts.name as contact_name',
          'company_contacts.email as contact_email',
        )) as ListedLink[];
    },
    /** Moves the expiry of every link of a request's reports (its due date moved). */
    async setRequestExpiry(requestId: string, expiresAt: string): Promise<void> {
      await db('information_report_links')
        .whereIn(
          'report_id',
          db('information_reports').where('information_request_id', requestId).select('id'),
        )
        .update({ expires_at: expiresAt });
    },
  };
}
export type ReportLinksRepo = ReturnType<typeof reportLinksRepo>;
