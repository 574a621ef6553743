import type { Knex } from 'knex';
import { alertsRepo } from './alerts.ts';
import { analyticsRepo } from './analytics.ts';
import { budgetsRepo } from './budgets.ts';
import { capTableRepo } from './cap-table.ts';
import { changeLogRepo } from './change-log.ts';
import { companiesRepo } from './companies.ts';
import { companyLogosRepo } from './company-logos.ts';
import { contactsRepo } from './contacts.ts';
import { customColumnsRepo } from './custom-columns.ts';
import { documentParsingRepo } from './document-parsing.ts';
import { documentsRepo } from './documents.ts';
import { eventsRepo } from './events.ts';
import { extractionRepo } from './extraction.ts';
import { firmsRepo } from './firms.ts';
import { fundsRepo } from './funds.ts';
import { idempotencyRepo } from './idempotency.ts';
import { informationRepo } from './information.ts';
import { informationWritesRepo } from './information-writes.ts';
import { mailRepo } from './mail.ts';
import { mcpAuthRepo } from './mcp-auth.ts';
import { metricWritesRepo } from './metric-writes.ts';
import { metricsRepo } from './metrics.ts';
import { notesRepo } from './notes.ts';
import { reportLinksRepo } from './report-links.ts';
import { sessionsRepo } from './sessions.ts';
import { applicationsRepo, tokensRepo } from './tokens.ts';
import { usersRepo } from './users.ts';
import { webhooksRepo } from './webhooks.ts';

/** Every repository over one database handle; the only code that writes SQL lives behind these. */
export function createRepos(db: Knex) {
  return {
    db,
    firms: firmsRepo(db),
    users: usersRepo(db),
    companies: companiesRepo(db),
    tokens: tokensRepo(db),
    applications: applicationsRepo(db),
    mcpAuth: mcpAuthRepo(db),
    sessions: sessionsRepo(db),
    metrics: metricsRepo(db),
    metricWrites: metricWritesRepo(db),
    idempotency: idempotencyRepo(db),
    budgets: budgetsRepo(db),
    documents: documentsRepo(db),
    documentParsing: documentParsingRepo(db),
    extraction: extractionRepo(db),
    notes: notesRepo(db),
    funds: fundsRepo(db),
    customColumns: customColumnsRepo(db),
    information: informationRepo(db),
    informationWrites: informationWritesRepo(db),
    contacts: contactsRepo(db),
    reportLinks: reportLinksRepo(db),
    analytics: analyticsRepo(db),
    capTable: capTableRepo(db),
    changeLog: changeLogRepo(db),
    events: eventsRepo(db),
    companyLogos: companyLogosRepo(db),
    alerts: alertsRepo(db),
    webhooks: webhooksRepo(db),
    mail: mailRepo(db),
  };
}
export type Repos = ReturnType<typeof createRepos>;

/** Runs `fn` over repositories bound to one transaction: what it writes commits together, or not at all. */
export function inTransaction<T>(repos: Repos, fn: (trx: Repos) => Promise<T>): Promise<T> {
  return repos.db.transaction((trx) => fn(createRepos(trx)));
}
