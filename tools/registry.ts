import { createAlertRule } from './alerts/create-alert-rule.ts';
import { deleteAlertRule } from './alerts/delete-alert-rule.ts';
import { getAlertRule, listAlertRules } from './alerts/list-alert-rules.ts';
import { listAlerts } from './alerts/list-alerts.ts';
import { updateAlertRule } from './alerts/update-alert-rule.ts';
import { getCompanyFinancialSummary } from './analytics/get-company-financial-summary.ts';
import { getCompanyNotesSummary } from './analytics/get-company-notes-summary.ts';
import { getCompanyPerformance } from './analytics/get-company-performance.ts';
import { getExcelPluginGuide } from './analytics/get-excel-plugin-guide.ts';
import { getPortfolioOverview } from './analytics/get-portfolio-overview.ts';
import { screenCompanies } from './analytics/screen-companies.ts';
import { getBudgetVariance } from './budgets/get-budget-variance.ts';
import { listBudgets } from './budgets/list-budgets.ts';
import { addFinancingRounds } from './cap-table/add-financing-rounds.ts';
import { addSecurities } from './cap-table/add-securities.ts';
import { addShareClasses } from './cap-table/add-share-classes.ts';
import { addTransactions } from './cap-table/add-transactions.ts';
import { getFinancingEvents } from './cap-table/get-financing-events.ts';
import { getInvestmentMetrics } from './cap-table/get-investment-metrics.ts';
import { getSecurities } from './cap-table/get-securities.ts';
import { getShareClasses } from './cap-table/get-share-classes.ts';
import { getTransactions } from './cap-table/get-transactions.ts';
import { upsertOverrides } from './cap-table/upsert-overrides.ts';
import { createCompany } from './companies/create-company.ts';
import { getCompany } from './companies/get-company.ts';
import { listCompanies } from './companies/list-companies.ts';
import { searchCompanies } from './companies/search-companies.ts';
import { updateCompany } from './companies/update-company.ts';
import { uploadCompanyLogo } from './companies/upload-company-logo.ts';
import { createCompanyContact } from './contacts/create-company-contact.ts';
import { deleteCompanyContact } from './contacts/delete-company-contact.ts';
import { listCompanyContacts } from './contacts/list-company-contacts.ts';
import { updateCompanyContact } from './contacts/update-company-contact.ts';
import { getCustomColumnOptions } from './custom-columns/get-custom-column-options.ts';
import { getCustomColumns } from './custom-columns/get-custom-columns.ts';
import { updateCustomColumnValues } from './custom-columns/update-custom-column-values.ts';
import type { AnyTool } from './define.ts';
import { confirmDocumentProposals } from './documents/confirm-document-proposals.ts';
import { getDocumentContent } from './documents/get-document-content.ts';
import { listDocumentProposals } from './documents/list-document-proposals.ts';
import { listDocuments } from './documents/list-documents.ts';
import { rejectDocumentProposals } from './documents/reject-document-proposals.ts';
import { searchDocuments } from './documents/search-documents.ts';
import { uploadDocument } from './documents/upload-document.ts';
import { listChanges } from './events/list-changes.ts';
import { getExtractionSettings } from './firm/get-extraction-settings.ts';
import { getFirmDetails } from './firm/get-firm-details.ts';
import { updateExtractionSettings } from './firm/update-extraction-settings.ts';
import { getFundPerformance } from './funds/get-fund-performance.ts';
import { listFunds } from './funds/list-funds.ts';
import { closeInformationRequest } from './information/close-information-request.ts';
import { createInformationRequest } from './information/create-information-request.ts';
import { deleteInformationRequest } from './information/delete-information-request.ts';
import { getInformationReport } from './information/get-information-report.ts';
import { getInformationRequest } from './information/get-information-request.ts';
import { listInformationReports } from './information/list-information-reports.ts';
import { listInformationRequests } from './information/list-information-requests.ts';
import { remindInformationRequest } from './information/remind-information-request.ts';
import { listReportLinks, revokeReportLinks } from './information/report-links.ts';
import { sendInformationRequest } from './information/send-information-request.ts';
import { updateInformationRequest } from './information/update-information-request.ts';
import { createMetrics } from './metrics/create-metrics.ts';
import { deleteMetric } from './metrics/delete-metric.ts';
import { getCompanyMetrics } from './metrics/get-company-metrics.ts';
import { getCompanyRecentMetrics } from './metrics/get-company-recent-metrics.ts';
import { getMetricsOptions } from './metrics/get-metrics-options.ts';
import { updateMetric } from './metrics/update-metric.ts';
import { createNotes } from './notes/create-notes.ts';
import { listNotes } from './notes/list-notes.ts';
import { searchNotes } from './notes/search-notes.ts';
import type { ReadToolset, Toolset } from './toolsets.ts';
import { listUsers } from './users/list-users.ts';
import { whoami } from './users/whoami.ts';
import { createWebhook } from './webhooks/create-webhook.ts';
import { deleteWebhook } from './webhooks/delete-webhook.ts';
import { getWebhook } from './webhooks/get-webhook.ts';
import { listWebhookDeliveries } from './webhooks/list-webhook-deliveries.ts';
import { listWebhooks } from './webhooks/list-webhooks.ts';
import { replayWebhookDelivery } from './webhooks/replay-webhook-delivery.ts';
import { rotateWebhookSecret } from './webhooks/rotate-webhook-secret.ts';
import { sendTestWebhook } from './webhooks/send-test-webhook.ts';
import { updateWebhook } from './webhooks/update-webhook.ts';

/** Tools grouped by domain: each domain is a toolset of the same name (see tools/toolsets.ts). */
export type Domains = Readonly<Record<ReadToolset, readonly AnyTool[]>>;

/**
 * Every tool, grouped by domain: the table of contents of the service, one line a tool. A tool's
 * entry is all there is to add besides its file: its domain is its toolset (its read tools are listed
 * when a client chooses it), and the REST routes it declares are served and documented.
 */
export const domains: Domains = {
  companies: [
    listCompanies,
    getCompany,
    searchCompanies,
    uploadCompanyLogo,
    createCompany,
    updateCompany,
    // Custom columns: fields of a company
    getCustomColumns,
    getCustomColumnOptions,
    updateCustomColumnValues,
  ],
  metrics: [
    getCompanyMetrics,
    getCompanyRecentMetrics,
    getMetricsOptions,
    updateMetric,
    createMetrics,
    deleteMetric,
  ],
  budgets: [listBudgets, getBudgetVariance],
  documents: [
    listDocuments,
    uploadDocument,
    getDocumentContent,
    searchDocuments,
    listDocumentProposals,
    confirmDocumentProposals,
    rejectDocumentProposals,
  ],
  notes: [listNotes, searchNotes, createNotes],
  // Information requests, the reports companies answer them with, and the contacts who answer
  information: [
    listInformationRequests,
    listInformationReports,
    listCompanyContacts,
    getInformationRequest,
    getInformationReport,
    listReportLinks,
    createInformationRequest,
    sendInformationRequest,
    remindInformationRequest,
    updateInformationRequest,
    closeInformationRequest,
    deleteInformationRequest,
    revokeReportLinks,
    createCompanyContact,
    updateCompanyContact,
    deleteCompanyContact,
  ],
  // The firm, its users and who is signed in
  firm: [
    listUsers,
    whoami,
    getFirmDetails,
    getExtractionSettings,
    updateExtractionSettings,
    // Webhooks (REST only)
    listWebhooks,
    getWebhook,
    createWebhook,
    updateWebhook,
    rotateWebhookSecret,
    sendTestWebhook,
    listWebhookDeliveries,
    replayWebhookDelivery,
    // Deletion last: test/isolation.test.ts takes the routes in table order on one endpoint
    deleteWebhook,
  ],
  // Funds and their returns
  funds: [listFunds, getInvestmentMetrics, getFundPerformance],
  // Company analytics, the portfolio and guides
  analytics: [
    getCompanyPerformance,
    getCompanyFinancialSummary,
    getCompanyNotesSummary,
    getExcelPluginGuide,
    getPortfolioOverview,
    screenCompanies,
  ],
  cap_table: [
    getShareClasses,
    getFinancingEvents,
    getTransactions,
    getSecurities,
    addFinancingRounds,
    addShareClasses,
    addSecurities,
    addTransactions,
    upsertOverrides,
  ],
  // KPI alert rules and the alerts they raise
  alerts: [listAlerts, listAlertRules, getAlertRule, createAlertRule, updateAlertRule, deleteAlertRule],
  // What changed: the change feed
  changes: [listChanges],
};

/**
 * The tool table of some domains, in their order; each tool is marked with its domain, which is its
 * toolset, so the mark travels with the table. The registry is the one of `domains`; a test adds a
 * domain's tool the same way.
 */
export function toolTable(grouped: Domains): AnyTool[] {
  const table: AnyTool[] = [];
  for (const [domain, tools] of Object.entries(grouped) as [ReadToolset, readonly AnyTool[]][]) {
    for (const tool of tools) {
      if (tool.toolset !== undefined && tool.toolset !== domain)
        throw new Error(`${tool.name} is in the ${tool.toolset} domain and cannot also be in ${domain}`);
      tool.toolset = domain;
      table.push(tool);
    }
  }
  return table;
}

export const registry: readonly AnyTool[] = toolTable(domains);

const byName = new Map(registry.map((t) => [t.name, t]));

export function toolByName(name: string): AnyTool | undefined {
  return byName.get(name);
}

/**
 * Whether a tool is in one of the chosen toolsets: a write tool in `writes`, a read tool in its
 * domain's. A tool in no domain (a test's own table not built by toolTable) is in every choice.
 */
export function inToolsets(tool: AnyTool, toolsets: readonly Toolset[]): boolean {
  if (tool.write) return toolsets.includes('writes');
  return tool.toolset === undefined || toolsets.includes(tool.toolset);
}
