import { getPortfolioOverview } from '../tools/analytics/get-portfolio-overview.ts';
import { screenCompanies } from '../tools/analytics/screen-companies.ts';
import { getBudgetVariance } from '../tools/budgets/get-budget-variance.ts';
import { listBudgets } from '../tools/budgets/list-budgets.ts';
import { addFinancingRounds } from '../tools/cap-table/add-financing-rounds.ts';
import { getFinancingEvents } from '../tools/cap-table/get-financing-events.ts';
import { getInvestmentMetrics } from '../tools/cap-table/get-investment-metrics.ts';
import { getSecurities } from '../tools/cap-table/get-securities.ts';
import { getShareClasses } from '../tools/cap-table/get-share-classes.ts';
import { getTransactions } from '../tools/cap-table/get-transactions.ts';
import { getCompany } from '../tools/companies/get-company.ts';
import { listCompanies } from '../tools/companies/list-companies.ts';
import { getCustomColumnOptions } from '../tools/custom-columns/get-custom-column-options.ts';
import { getCompanyCustomColumns } from '../tools/custom-columns/get-custom-columns.ts';
import { listDocuments } from '../tools/documents/list-documents.ts';
import { getFirmDetails } from '../tools/firm/get-firm-details.ts';
import { getFundPerformance } from '../tools/funds/get-fund-performance.ts';
import { listFunds } from '../tools/funds/list-funds.ts';
import { listInformationReports } from '../tools/information/list-information-reports.ts';
import { listInformationRequests } from '../tools/information/list-information-requests.ts';
import { getMetricsOptions } from '../tools/metrics/get-metrics-options.ts';
import { listMetrics } from '../tools/metrics/list-metrics.ts';
import { updateMetric } from '../tools/metrics/update-metric.ts';
import { listCompanyNotes } from '../tools/notes/list-notes.ts';
import { listUsers } from '../tools/users/list-users.ts';
import { whoami } from '../tools/users/whoami.ts';
import type { Route } from './adapter.ts';

const paging = { page_size: 'per_page' };

/** Every REST route, one line each over the tool it calls. */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/companies/',
    tool: listCompanies,
    summary: 'List companies',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/companies/:company_id/',
    tool: getCompany,
    summary: 'Get one company',
    envelope: 'plain',
  },
  {
    method: 'GET',
    path: '/v1/portfolio/overview/',
    tool: getPortfolioOverview,
    summary: 'Companies by status and sector, totals in the firm currency and who needs attention',
    envelope: 'plain',
  },
  {
    method: 'GET',
    path: '/v1/portfolio/screen/',
    tool: screenCompanies,
    summary: 'Filter and rank every company by its key figures',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/metrics/',
    tool: listMetrics,
    summary: 'List the metrics of a company',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/metrics/options/',
    tool: getMetricsOptions,
    summary: 'List metric categories and custom metrics',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'PATCH',
    path: '/v1/metrics/:datum_id/',
    tool: updateMetric,
    summary: 'Change the value, currency or comments of one metric datum',
    body: 'merge',
    envelope: 'plain',
  },
  {
    method: 'GET',
    path: '/v1/budgets/',
    tool: listBudgets,
    summary: 'List budgets',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/budgets/variance/',
    tool: getBudgetVariance,
    summary: 'Budget against actual of one company',
    rename: { ...paging },
    envelope: 'plain',
  },
  {
    method: 'GET',
    path: '/v1/documents/',
    tool: listDocuments,
    summary: 'List documents',
    rename: { ...paging, from: 'from_date', to: 'to_date' },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/notes/',
    tool: listCompanyNotes,
    summary: 'List the notes on a company',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/custom-columns/',
    tool: getCompanyCustomColumns,
    summary: "List a company's custom column values",
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/custom-columns/options/',
    tool: getCustomColumnOptions,
    summary: 'List custom columns and their options',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/information-requests/',
    tool: listInformationRequests,
    summary: 'List information requests',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/information-reports/',
    tool: listInformationReports,
    summary: 'List information reports',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/funds/',
    tool: listFunds,
    summary: 'List funds',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/funds/performance/',
    tool: getFundPerformance,
    summary: 'Fund returns: paid-in, NAV, TVPI, DPI, RVPI, gross IRR',
    rename: { ...paging },
    envelope: 'plain',
  },
  {
    method: 'GET',
    path: '/v1/users/',
    tool: listUsers,
    summary: 'List users',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/whoami/',
    tool: whoami,
    summary: 'The calling user and their firm',
    envelope: 'plain',
  },
  {
    method: 'GET',
    path: '/v1/firm-details/',
    tool: getFirmDetails,
    summary: "The caller's firm",
    envelope: 'plain',
  },
  {
    method: 'POST',
    path: '/beta/investment/financing-events/get/',
    tool: getFinancingEvents,
    summary: 'Get financing events',
    body: 'merge',
    envelope: 'results',
  },
  {
    method: 'POST',
    path: '/beta/investment/share-classes/get/',
    tool: getShareClasses,
    summary: 'Get share classes',
    body: 'merge',
    envelope: 'results',
  },
  {
    method: 'POST',
    path: '/beta/investment/securities/get/',
    tool: getSecurities,
    summary: 'Get securities',
    body: 'merge',
    envelope: 'results',
  },
  {
    method: 'POST',
    path: '/beta/investment/transactions/get/',
    tool: getTransactions,
    summary: 'Get transactions',
    body: 'merge',
    envelope: 'results',
  },
  {
    method: 'POST',
    path: '/beta/investment/metrics/get/',
    tool: getInvestmentMetrics,
    summary: 'Get investment performance metrics',
    body: 'merge',
    envelope: 'plain',
  },
  {
    method: 'POST',
    path: '/beta/investment/financing-rounds/add/',
    tool: addFinancingRounds,
    summary: 'Add financing rounds',
    body: 'merge',
    envelope: 'results',
    status: 201,
  },
];
