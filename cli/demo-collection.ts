// The demo firm's quarterly collection, made through the services as a user would: a founder contact
// per company and one request for the current quarter, sent, so that the outbox holds its mail and the
// serve banner can print a working founder link.
import { principalForEmail } from '../auth/local-principal.ts';
import type { Clock } from '../core/clock.ts';
import type { Repos } from '../db/repos/index.ts';
import { DEMO } from '../db/seeds/demo.ts';
import { createContact } from '../services/contacts.ts';
import { FOUNDER_PAGE_PATH, founderLinkUrl, verifyFounderLink } from '../services/founder-links.ts';
import { createRequest } from '../services/information-requests.ts';
import { sendRequest } from '../services/information-sending.ts';

export interface DemoCollectionDeps {
  repos: Repos;
  clock: Clock;
  /** Where the mailed links point. */
  publicUrl: string;
  founderLinkDaysAfterDue?: number;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);

/** The calendar quarter of `now`: its label, first and last day, and a due date a month after it. */
export function currentQuarter(now: Date) {
  const year = now.getUTCFullYear();
  const q = Math.floor(now.getUTCMonth() / 3);
  const start = new Date(Date.UTC(year, q * 3, 1));
  const end = new Date(Date.UTC(year, q * 3 + 3, 0));
  const due = new Date(Date.UTC(year, q * 3 + 3, 30));
  return {
    label: `${year}-Q${q + 1}`,
    name: `Q${q + 1} ${year} update`,
    start: iso(start),
    end: iso(end),
    due: iso(due),
  };
}

/** Adds a contact to every active company of the demo firm, then drafts and sends the quarter's request. */
export async function addDemoCollection(
  deps: DemoCollectionDeps,
): Promise<{ requestId: string; companies: number }> {
  const principal = await principalForEmail(deps.repos, DEMO.email);
  const ctx = { ...deps, principal };
  const listed = await deps.repos.companies.list(
    principal.scope,
    { status: 'active' },
    { limit: 1000, offset: 0 },
  );
  for (const company of listed.rows) {
    await createContact(ctx, company.id, {
      name: `${company.name} founders`,
      email: `founders@${company.slug}.example`,
    });
  }
  const quarter = currentQuarter(deps.clock.now());
  const requestId = await createRequest(ctx, {
    name: quarter.name,
    period: quarter.label,
    period_start_date: quarter.start,
    period_end_date: quarter.end,
    due_date: quarter.due,
    message: 'Please send the figures of the quarter and the board deck by the due date.',
    company_ids: listed.rows.map((c) => c.id),
    metrics: [
      { category: 'revenue', time_period: 'quarter' },
      { category: 'net_burn', time_period: 'quarter' },
      { category: 'cash_in_bank' },
      { category: 'headcount' },
      { category: 'arr', optional: true },
    ],
    documents: [{ name: 'Board deck' }, { name: 'Updated cap table', optional: true }],
  });
  await sendRequest(ctx, requestId);
  return { requestId, companies: listed.rows.length };
}

/**
 * A founder link of the demo firm that works now, at `base`: the one in the newest unsent request mail
 * of the outbox (a link is stored only hashed; the held mail is where its token is still readable).
 * Undefined once the mail is sent (SMTP_URL set), its link expired or revoked, or the demo removed.
 */
export async function demoFounderLink(
  deps: { repos: Repos; clock: Clock },
  base: string,
): Promise<string | undefined> {
  const firm = await deps.repos.firms.getBySlug(DEMO.firmSlug);
  if (!firm) return undefined;
  const mail = await deps.repos.mail.list({ firmId: firm.id, statuses: ['held', 'pending'], limit: 50 });
  for (const m of mail) {
    const token = m.kind === 'request' ? m.link?.split(FOUNDER_PAGE_PATH)[1] : undefined;
    if (!token) continue;
    try {
      await verifyFounderLink(deps, token, { touch: false });
      return founderLinkUrl(base, token);
    } catch {
      // an expired or revoked link: try the next message
    }
  }
  return undefined;
}
