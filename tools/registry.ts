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
import { getCustomColumnOptions } from './custom-columns/get-custom-column-options.ts';
import { getCustomColumns } from './custom-columns/get-custom-columns.ts';
import { updateCustomColumnValues } from './custom-columns/update-custom-column-values.ts';
import type { AnyTool } from './define.ts';
import { getDocumentContent } from './documents/get-document-content.ts';
import { listDocuments } from './documents/list-documents.ts';
import { searchDocuments } from './documents/search-documents.ts';
import { uploadDocument } from './documents/upload-document.ts';
import { listChanges } from './events/list-changes.ts';
import { getFirmDetails } from './firm/get-firm-details.ts';
import { getFundPerformance } from './funds/get-fund-performance.ts';
import { listFunds } from './funds/list-funds.ts';
import { listInformationReports } from './information/list-information-reports.ts';
import { listInformationRequests } from './information/list-information-requests.ts';
import { createMetrics } from './metrics/create-metrics.ts';
import { deleteMetric } from './metrics/delete-metric.ts';
import { getCompanyMetrics } from './metrics/get-company-metrics.ts';
import { getCompanyRecentMetrics } from './metrics/get-company-recent-metrics.ts';
import { getMetricsOptions } from './metrics/get-metrics-options.ts';
import { listMetrics } from './metrics/list-metrics.ts';
import { updateMetric } from './metrics/update-metric.ts';
import { createNotes } from './notes/create-notes.ts';
import { listNotes } from './notes/list-notes.ts';
import { searchNotes } from './notes/search-notes.ts';
import { listUsers } from './users/list-users.ts';
import { whoami } from './users/whoami.ts';

/** Every tool, grouped by domain: the table of contents of the service. */
export const registry: readonly AnyTool[] = [
  // Companies
  listCompanies,
  getCompany,
  searchCompanies,
  uploadCompanyLogo,
  createCompany,
  updateCompany,
  // Metrics
  getCompanyMetrics,
  getCompanyRecentMetrics,
  getMetricsOptions,
  listMetrics,
  updateMetric,
  createMetrics,
  deleteMetric,
  // Budgets
  listBudgets,
  getBudgetVariance,
  // Documents
  listDocuments,
  uploadDocument,
  getDocumentContent,
  searchDocuments,
  // Notes
  listNotes,
  searchNotes,
  createNotes,
  // Custom columns
  getCustomColumns,
  getCustomColumnOptions,
  updateCustomColumnValues,
  // Changes
  listChanges,
  // Information requests and reports
  listInformationRequests,
  listInformationReports,
  // Firm, funds and users
  listFunds,
  listUsers,
  whoami,
  getFirmDetails,
  // Analytics and guides
  getCompanyPerformance,
  getCompanyFinancialSummary,
  getCompanyNotesSummary,
  getExcelPluginGuide,
  // Portfolio
  getPortfolioOverview,
  screenCompanies,
  // Cap table
  getShareClasses,
  getFinancingEvents,
  getTransactions,
  getSecurities,
  addFinancingRounds,
  addShareClasses,
  addSecurities,
  addTransactions,
  upsertOverrides,
  // Fund returns
  getInvestmentMetrics,
  getFundPerformance,
] as unknown as AnyTool[];

const byName = new Map(registry.map((t) => [t.name, t]));

export function toolByName(name: string): AnyTool | undefined {
  return byName.get(name);
}
