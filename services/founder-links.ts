// A founder answers a report through a private link: no account, one report, the token kept only
// as its SHA-256, an expiry after the due date, revocable by the firm. Checking a link builds the
// narrow principal the founder's writes go through.
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import { NotFound, ToolError } from '../core/errors.ts';
import type { Firm, Principal, User } from '../core/principal.ts';
import { newToken, tokenHash } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import type { CompanyRow } from '../db/repos/companies.ts';
import type { ContactRow } from '../db/repos/contacts.ts';
import type { Repos } from '../db/repos/index.ts';
import type { LinkTarget, ReportLinkRow } from '../db/repos/report-links.ts';
import { record, type ServiceContext, withRecorder } from './changes.ts';

/** Where the founder's page answers a link: `PUBLIC_URL` + this + the token. */
export const FOUNDER_PAGE_PATH = '/respond/';
export const DEFAULT_LINK_DAYS_AFTER_DUE = 30;

const TOKEN_PREFIX = 'frl';
// The prefix, then 256 random bits in base64url.
const TOKEN_SHAPE = /^frl_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 86_400_000;

export function founderLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${FOUNDER_PAGE_PATH}${token}`;
}

/** The end of the due date (UTC) plus the days a link outlives it. */
export function linkExpiry(dueDate: string, daysAfterDue = DEFAULT_LINK_DAYS_AFTER_DUE): string {
  return new Date(Date.parse(`${dueDate}T23:59:59.999Z`) + daysAfterDue * DAY_MS).toISOString();
}

/** A link just made: its token exists only here and in the mail it goes into. */
export interface MintedLink {
  id: string;
  contact: ContactRow;
  token: string;
  url: string;
}

/** Makes one link per contact to a report, inside the caller's transaction. */
export async function mintLinks(
  repos: Repos,
  report: { id: string; firm_id: string },
  contacts: readonly ContactRow[],
  options: { at: string; expiresAt: string; publicUrl: string },
): Promise<MintedLink[]> {
  const minted = contacts.map((contact) => ({ id: newId(), contact, token: newToken(TOKEN_PREFIX) }));
  const rows: ReportLinkRow[] = minted.map((m) => ({
    id: m.id,
    firm_id: report.firm_id,
    report_id: report.id,
    contact_id: m.contact.id,
    token_hash: tokenHash(m.token),
    created_at: options.at,
    expires_at: options.expiresAt,
    revoked_at: null,
    last_used_at: null,
  }));
  await repos.reportLinks.insert(rows);
  return minted.map((m) => ({ ...m, url: founderLinkUrl(options.publicUrl, m.token) }));
}

/** Why a link is refused: the page says which, so a founder knows to ask the firm for a new one. */
export type LinkRefusal = 'unknown' | 'other_report' | 'revoked' | 'closed' | 'expired';

const REFUSALS: Record<LinkRefusal, string> = {
  unknown: 'this link is not valid; check that it was copied whole',
  other_report: 'this link is for another report',
  revoked: 'this link was withdrawn by the firm; ask them for a new one',
  closed: 'this request is closed and takes no more answers',
  expired: 'this link has expired; ask the firm for a new one',
};

/** A link that cannot be used: a 404, so that nothing about other links or reports is told. */
export class FounderLinkRefused extends ToolError {
  constructor(readonly reason: LinkRefusal) {
    super(404, 'not_found', REFUSALS[reason]);
  }
}

/** A checked link: the report it opens, and for whom. */
export interface FounderSession {
  /** The token the founder came with (never stored), for the links of the mail they are sent. */
  token: string;
  link: LinkTarget;
  firm: Firm;
  company: CompanyRow;
  contact: { id: string; name: string; email: string };
}

/** Why a link found by its hash is refused now, if it is. */
function refusal(link: LinkTarget, now: Date, reportId?: string): LinkRefusal | undefined {
  if (reportId !== undefined && link.report_id !== reportId) return 'other_report';
  if (link.revoked_at) return 'revoked';
  if (link.request_status !== 'sent') return 'closed';
  if (now.toISOString() > link.expires_at) return 'expired';
  return undefined;
}

/**
 * Checks a founder's token: its shape, then its SHA-256 against the stored one (in constant time),
 * the report it is for (when the caller names one), revocation, the request still taking answers,
 * and the expiry. Marks the link used. Throws FounderLinkRefused.
 */
export async function verifyFounderLink(
  deps: { repos: Repos; clock: Clock },
  token: string,
  options: { reportId?: string; touch?: boolean } = {},
): Promise<FounderSession> {
  if (!TOKEN_SHAPE.test(token)) throw new FounderLinkRefused('unknown');
  const hash = tokenHash(token);
  const link = await deps.repos.reportLinks.byHash(hash);
  if (!link || !timingSafeEqual(Buffer.from(link.token_hash, 'hex'), Buffer.from(hash, 'hex')))
    throw new FounderLinkRefused('unknown');
  const now = deps.clock.now();
  const refused = refusal(link, now, options.reportId);
  if (refused) throw new FounderLinkRefused(refused);
  if (options.touch !== false) await deps.repos.reportLinks.touch(link.id, now.toISOString());
  const scope = { firmId: link.firm_id, companyIds: null };
  const firm = await deps.repos.firms.get(link.firm_id);
  const companies = await deps.repos.companies.names(scope, [link.company_id]);
  const company = companies.get(link.company_id);
  if (!firm || !company) throw new FounderLinkRefused('unknown');
  return {
    token,
    link,
    firm,
    company,
    contact: { id: link.contact_id, name: link.contact_name, email: link.contact_email },
  };
}

/** Checks again, inside a write, that a session's link still holds (not revoked, closed or expired since). */
export async function recheckLink(repos: Repos, session: FounderSession, now: Date): Promise<void> {
  const link = await repos.reportLinks.byId(session.link.id);
  if (!link) throw new FounderLinkRefused('unknown');
  const refused = refusal(link, now, session.link.report_id);
  if (refused) throw new FounderLinkRefused(refused);
}

/**
 * The context a founder's writes run in: the contact as a principal of the report's company only, with
 * no OAuth scope (no tool or route takes it) and a stand-in user that names the contact in metric history.
 */
export function founderContext(
  deps: { repos: Repos; clock: Clock },
  session: FounderSession,
): ServiceContext {
  const { firm, company, contact } = session;
  const user: User = {
    id: `contact:${contact.id}`,
    firm_id: firm.id,
    email: contact.email,
    first_name: contact.name,
    last_name: '',
    password_hash: '',
    role: 'viewer',
    all_companies: false,
    can_view_documents: false,
    can_edit_cap_table: false,
    is_active: true,
    created_at: firm.created_at,
  };
  const principal: Principal = {
    kind: 'contact',
    key: `contact:${contact.id}`,
    tokenId: session.link.id,
    user,
    firm,
    scope: { firmId: firm.id, companyIds: [company.id] },
    scopes: [],
    contact,
  };
  return { repos: deps.repos, clock: deps.clock, principal };
}

/** Which of a report's links to end: one, a contact's, or (neither given) all of them. */
export interface RevokeSelection {
  contactId?: string;
  linkId?: string;
}

/** Revokes links of a visible report; the ids revoked (none when they were already). */
export async function revokeLinks(
  ctx: ServiceContext,
  reportId: string,
  selection: RevokeSelection,
): Promise<string[]> {
  return withRecorder(ctx, async (repos, recorder) => {
    const report = await repos.informationWrites.lockReport(ctx.principal.firm.id, reportId);
    const visible = report && (await repos.companies.names(ctx.principal.scope, [report.company_id]));
    if (!report || !visible?.has(report.company_id))
      throw new NotFound(`no information report with id ${reportId}; list_information_reports lists them`);
    const ids = await repos.reportLinks.revoke({ reportId, ...selection }, recorder.at);
    if (ids.length === 0) return ids;
    const data = {
      report_id: reportId,
      information_request_id: report.information_request_id,
      link_ids: ids,
      contact_id: selection.contactId ?? null,
    };
    await record(recorder, {
      change: {
        entity: 'information_reports',
        entityId: reportId,
        action: 'update',
        changes: { links_revoked: ids },
      },
      event: {
        type: 'information_report.links_revoked',
        companyId: report.company_id,
        resourceType: 'information_report',
        resourceId: reportId,
        data,
      },
    });
    return ids;
  });
}
