import { z } from 'zod';
import { revokeLinks } from '../../services/founder-links.ts';
import { defineTool, readOnly } from '../define.ts';
import { NotFound } from '../errors.ts';
import { reportId } from './get-information-report.ts';

const Link = z.object({
  id: z.string(),
  contact_id: z.string(),
  contact_name: z.string(),
  contact_email: z.string(),
  created_at: z.string(),
  expires_at: z
    .string()
    .describe('The link works until then (the due date plus FOUNDER_LINK_DAYS_AFTER_DUE).'),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable().describe('When the founder last opened or used it.'),
});

export const listReportLinks = defineTool({
  name: 'list_information_report_links',
  title: "List a report's founder links",
  description:
    'The private links sent for one report, newest first: who has one, until when, whether revoked. Never the links themselves.',
  input: z.object({ information_report_id: reportId }),
  output: z.object({ results: z.array(Link) }),
  annotations: readOnly,
  mcp: false,
  routes: [
    {
      method: 'GET',
      path: '/v1/information-reports/:information_report_id/links/',
      summary: "List a report's founder links",
    },
  ],
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    const id = input.information_report_id;
    const { rows } = await repos.information.listReports(
      principal.scope,
      { reportId: id },
      { limit: 1, offset: 0 },
    );
    if (!rows[0])
      throw new NotFound(`no information report with id ${id}; list_information_reports lists them`);
    const links = await repos.reportLinks.ofReport(id);
    return {
      results: links.map((l) => ({
        id: l.id,
        contact_id: l.contact_id,
        contact_name: l.contact_name,
        contact_email: l.contact_email,
        created_at: l.created_at,
        expires_at: l.expires_at,
        revoked_at: l.revoked_at,
        last_used_at: l.last_used_at,
      })),
    };
  },
});

export const revokeReportLinks = defineTool({
  name: 'revoke_information_report_links',
  title: "Revoke a report's founder links",
  description:
    "Ends founder links of one report at once: one link (link_id), a contact's (contact_id), or every one. " +
    'A reminder sends fresh ones. Editor or admin role.',
  input: z.object({
    information_report_id: reportId,
    link_id: z.string().min(1).optional().describe('Only this link (list_information_report_links).'),
    contact_id: z.string().min(1).optional().describe("Only this contact's links."),
  }),
  output: z.object({
    revoked: z.array(z.string()).describe('Ids of the links revoked now (none: they were already).'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  mcp: false,
  routes: [
    {
      method: 'POST',
      path: '/v1/information-reports/:information_report_id/links/revoke/',
      summary: "Revoke a report's founder links",
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    const revoked = await revokeLinks(ctx, input.information_report_id, {
      linkId: input.link_id,
      contactId: input.contact_id,
    });
    return { revoked };
  },
});
