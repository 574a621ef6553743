import { createAlertRule } from '../tools/alerts/create-alert-rule.ts';
import { deleteAlertRule } from '../tools/alerts/delete-alert-rule.ts';
import { getAlertRule, listAlertRules } from '../tools/alerts/list-alert-rules.ts';
import { listAlerts } from '../tools/alerts/list-alerts.ts';
import { updateAlertRule } from '../tools/alerts/update-alert-rule.ts';
import { getPortfolioOverview } from '../tools/analytics/get-portfolio-overview.ts';
import { screenCompanies } from '../tools/analytics/screen-companies.ts';
import { getBudgetVariance } from '../tools/budgets/get-budget-variance.ts';
import { listBudgets } from '../tools/budgets/list-budgets.ts';
import { addFinancingRounds } from '../tools/cap-table/add-financing-rounds.ts';
import { addSecurities } from '../tools/cap-table/add-securities.ts';
import { addShareClasses } from '../tools/cap-table/add-share-classes.ts';
import { addTransactions } from '../tools/cap-table/add-transactions.ts';
import { getFinancingEvents } from '../tools/cap-table/get-financing-events.ts';
import { getInvestmentMetrics } from '../tools/cap-table/get-investment-metrics.ts';
import { getSecurities } from '../tools/cap-table/get-securities.ts';
import { getShareClasses } from '../tools/cap-table/get-share-classes.ts';
import { getTransactions } from '../tools/cap-table/get-transactions.ts';
import { upsertOverrides } from '../tools/cap-table/upsert-overrides.ts';
import { createCompany } from '../tools/companies/create-company.ts';
import { getCompany } from '../tools/companies/get-company.ts';
import { listCompanies } from '../tools/companies/list-companies.ts';
import { updateCompany } from '../tools/companies/update-company.ts';
import { LOGO_UPLOAD, uploadCompanyLogo } from '../tools/companies/upload-company-logo.ts';
import { createCompanyContact } from '../tools/contacts/create-company-contact.ts';
import { deleteCompanyContact } from '../tools/contacts/delete-company-contact.ts';
import { listCompanyContacts } from '../tools/contacts/list-company-contacts.ts';
import { updateCompanyContact } from '../tools/contacts/update-company-contact.ts';
import { getCustomColumnOptions } from '../tools/custom-columns/get-custom-column-options.ts';
import { getCustomColumns } from '../tools/custom-columns/get-custom-columns.ts';
import { updateCustomColumnValues } from '../tools/custom-columns/update-custom-column-values.ts';
import { getDocumentContent } from '../tools/documents/get-document-content.ts';
import { listDocuments } from '../tools/documents/list-documents.ts';
import { searchDocuments } from '../tools/documents/search-documents.ts';
import { DOCUMENT_UPLOAD, uploadDocument } from '../tools/documents/upload-document.ts';
import { listChanges } from '../tools/events/list-changes.ts';
import { getFirmDetails } from '../tools/firm/get-firm-details.ts';
import { getFundPerformance } from '../tools/funds/get-fund-performance.ts';
import { listFunds } from '../tools/funds/list-funds.ts';
import { closeInformationRequest } from '../tools/information/close-information-request.ts';
import { createInformationRequest } from '../tools/information/create-information-request.ts';
import { deleteInformationRequest } from '../tools/information/delete-information-request.ts';
import { getInformationReport } from '../tools/information/get-information-report.ts';
import { getInformationRequest } from '../tools/information/get-information-request.ts';
import { listInformationReports } from '../tools/information/list-information-reports.ts';
import { listInformationRequests } from '../tools/information/list-information-requests.ts';
import { remindInformationRequest } from '../tools/information/remind-information-request.ts';
import { listReportLinks, revokeReportLinks } from '../tools/information/report-links.ts';
import { sendInformationRequest } from '../tools/information/send-information-request.ts';
import { updateInformationRequest } from '../tools/information/update-information-request.ts';
import { createMetrics } from '../tools/metrics/create-metrics.ts';
import { deleteMetric } from '../tools/metrics/delete-metric.ts';
import { getMetricsOptions } from '../tools/metrics/get-metrics-options.ts';
import { listMetrics } from '../tools/metrics/list-metrics.ts';
import { updateMetric } from '../tools/metrics/update-metric.ts';
import { createNotes } from '../tools/notes/create-notes.ts';
import { listNotes } from '../tools/notes/list-notes.ts';
import { searchNotes } from '../tools/notes/search-notes.ts';
import { listUsers } from '../tools/users/list-users.ts';
import { whoami } from '../tools/users/whoami.ts';
import { createWebhook } from '../tools/webhooks/create-webhook.ts';
import { deleteWebhook } from '../tools/webhooks/delete-webhook.ts';
import { getWebhook } from '../tools/webhooks/get-webhook.ts';
import { listWebhookDeliveries } from '../tools/webhooks/list-webhook-deliveries.ts';
import { listWebhooks } from '../tools/webhooks/list-webhooks.ts';
import { replayWebhookDelivery } from '../tools/webhooks/replay-webhook-delivery.ts';
import { rotateWebhookSecret } from '../tools/webhooks/rotate-webhook-secret.ts';
import { sendTestWebhook } from '../tools/webhooks/send-test-webhook.ts';
import { updateWebhook } from '../tools/webhooks/update-webhook.ts';
import type { Route } from './adapter.ts';
import { del, get, patch, post, put } from './declare.ts';

const paging = { page_size: 'per_page' };
/** The REST listings of one company take it by id or by slug. */
const company = ['company_id', 'company_slug'];

/** Every REST route, one line each over the tool it calls. */
export const routes: readonly Route[] = [
  get('/v1/companies/', listCompanies, 'List companies', { rename: { ...paging }, envelope: 'page' }),
  get('/v1/companies/:company_id/', getCompany, 'Get one company'),
  post('/v1/companies/:company_id/logo/', uploadCompanyLogo, 'Upload a company logo', {
    upload: LOGO_UPLOAD,
    status: 201,
  }),
  post('/v1/companies/', createCompany, 'Create a company', { body: 'merge', status: 201 }),
  patch('/v1/companies/:company_id/', updateCompany, 'Change fields of a company', { body: 'merge' }),
  get('/v1/metrics/', listMetrics, 'List the metrics of a company', {
    rename: { ...paging },
    envelope: 'page',
  }),
  get('/v1/metrics/options/', getMetricsOptions, 'List metric categories and custom metrics', {
    rename: { ...paging },
    envelope: 'page',
  }),
  post('/v1/metrics/', createMetrics, 'Create metric data of one company', {
    body: { field: 'items' },
    envelope: 'results',
    status: 201,
    bodyLimit: '16mb',
  }),
  del('/v1/metrics/:datum_id/', deleteMetric, 'Delete one metric datum'),
  patch(
    '/v1/metrics/:datum_id/',
    updateMetric,
    'Change the value, currency or comments of one metric datum',
    { body: 'merge' },
  ),
  get('/v1/budgets/', listBudgets, 'List budgets', { rename: { ...paging }, envelope: 'page' }),
  get('/v1/documents/', listDocuments, 'List documents', {
    rename: { ...paging, from: 'from_date', to: 'to_date' },
    envelope: 'page',
  }),
  post('/v1/documents/', uploadDocument, 'Upload a document', { upload: DOCUMENT_UPLOAD, status: 201 }),
  get('/v1/documents/search/', searchDocuments, 'Search documents by their text', {
    rename: { ...paging },
    envelope: 'page',
    alongside: ['unsearchable'],
  }),
  get(
    '/v1/documents/:document_id/content/',
    getDocumentContent,
    'Get the text of a document, a page at a time',
  ),
  get('/v1/events/', listChanges, 'List change events in commit order', { rename: { ...paging } }),
  get('/v1/notes/', listNotes, 'List the notes on a company', {
    rename: { ...paging, from: 'from_date', to: 'to_date' },
    requireOneOf: company,
    envelope: 'page',
  }),
  post('/v1/notes/', createNotes, 'Add notes to one company', {
    body: { field: 'items' },
    envelope: 'results',
    status: 201,
  }),
  get('/v1/notes/search/', searchNotes, 'Search notes by their text', {
    rename: { ...paging },
    envelope: 'page',
  }),
  get('/v1/custom-columns/', getCustomColumns, "List a company's custom column values", {
    rename: { ...paging },
    requireOneOf: company,
    envelope: 'page',
  }),
  get('/v1/custom-columns/options/', getCustomColumnOptions, 'List custom columns and their options', {
    rename: { ...paging },
    envelope: 'page',
  }),
  put('/v1/custom-columns/values/', updateCustomColumnValues, 'Replace custom column values', {
    body: { field: 'items' },
    envelope: 'results',
  }),
  get('/v1/information-requests/', listInformationRequests, 'List information requests', {
    rename: { ...paging },
    envelope: 'page',
  }),
  get('/v1/information-reports/', listInformationReports, 'List information reports', {
    rename: { ...paging },
    envelope: 'page',
  }),
  post('/v1/information-requests/', createInformationRequest, 'Draft an information request', {
    body: 'merge',
    status: 201,
  }),
  get(
    '/v1/information-requests/:information_request_id/',
    getInformationRequest,
    'Get an information request',
  ),
  patch(
    '/v1/information-requests/:information_request_id/',
    updateInformationRequest,
    'Change an information request',
    { body: 'merge' },
  ),
  del(
    '/v1/information-requests/:information_request_id/',
    deleteInformationRequest,
    'Delete an information request',
  ),
  post(
    '/v1/information-requests/:information_request_id/send/',
    sendInformationRequest,
    'Send an information request to its companies',
  ),
  post(
    '/v1/information-requests/:information_request_id/remind/',
    remindInformationRequest,
    'Remind the companies that have not submitted',
    { body: 'merge' },
  ),
  post(
    '/v1/information-requests/:information_request_id/close/',
    closeInformationRequest,
    'Close an information request',
  ),
  get('/v1/information-reports/:information_report_id/', getInformationReport, 'Get an information report'),
  get(
    '/v1/information-reports/:information_report_id/links/',
    listReportLinks,
    "List a report's founder links",
  ),
  post(
    '/v1/information-reports/:information_report_id/links/revoke/',
    revokeReportLinks,
    "Revoke a report's founder links",
    { body: 'merge' },
  ),
  get('/v1/companies/:company_id/contacts/', listCompanyContacts, "List a company's contacts", {
    rename: { ...paging },
    envelope: 'page',
  }),
  post('/v1/companies/:company_id/contacts/', createCompanyContact, 'Add a company contact', {
    body: 'merge',
    status: 201,
  }),
  patch('/v1/companies/:company_id/contacts/:contact_id/', updateCompanyContact, 'Change a company contact', {
    body: 'merge',
  }),
  del('/v1/companies/:company_id/contacts/:contact_id/', deleteCompanyContact, 'Delete a company contact'),
  get('/v1/funds/', listFunds, 'List funds', { rename: { ...paging }, envelope: 'page' }),
  get('/v1/users/', listUsers, 'List users', { rename: { ...paging }, envelope: 'page' }),
  get('/v1/whoami/', whoami, 'The calling user and their firm'),
  get('/v1/firm-details/', getFirmDetails, "The caller's firm"),
  post('/beta/investment/financing-events/get/', getFinancingEvents, 'Get financing events', {
    body: 'merge',
    envelope: 'results',
  }),
  post('/beta/investment/share-classes/get/', getShareClasses, 'Get share classes', {
    body: 'merge',
    envelope: 'results',
  }),
  post('/beta/investment/securities/get/', getSecurities, 'Get securities', {
    body: 'merge',
    envelope: 'results',
  }),
  post('/beta/investment/transactions/get/', getTransactions, 'Get transactions', {
    body: 'merge',
    envelope: 'results',
  }),
  post('/beta/investment/financing-rounds/add/', addFinancingRounds, 'Add financing rounds', {
    body: 'merge',
    envelope: 'results',
    status: 201,
  }),
  post('/beta/investment/share-classes/add/', addShareClasses, 'Add share classes', {
    body: 'merge',
    envelope: 'results',
    status: 201,
  }),
  post('/beta/investment/securities/add/', addSecurities, 'Add securities', { body: 'merge', status: 201 }),
  post('/beta/investment/transactions/add/', addTransactions, 'Add transactions', {
    body: 'merge',
    envelope: 'results',
    status: 201,
  }),
  put('/beta/investment/overrides/upsert/', upsertOverrides, 'Upsert overrides', { body: 'merge' }),
  get(
    '/v1/portfolio/overview/',
    getPortfolioOverview,
    'Companies by status and sector, totals in the firm currency and who needs attention',
  ),
  get('/v1/portfolio/screen/', screenCompanies, 'Filter and rank every company by its key figures', {
    rename: { ...paging },
    envelope: 'page',
  }),
  get('/v1/budgets/variance/', getBudgetVariance, 'Budget against actual of one company', {
    rename: { ...paging },
  }),
  get(
    '/v1/funds/performance/',
    getFundPerformance,
    'Fund returns: paid-in, NAV, TVPI, DPI, RVPI, gross IRR',
    { rename: { ...paging }, defaults: { include_cash_flows: true } },
  ),
  post('/beta/investment/metrics/get/', getInvestmentMetrics, 'Get investment performance metrics', {
    body: 'merge',
    requireOneOf: ['company_ids'],
  }),
  get('/v1/alert-rules/', listAlertRules, 'List KPI alert rules'),
  post('/v1/alert-rules/', createAlertRule, 'Create a KPI alert rule', { body: 'merge', status: 201 }),
  get('/v1/alert-rules/:rule_id/', getAlertRule, 'Get one KPI alert rule'),
  patch('/v1/alert-rules/:rule_id/', updateAlertRule, 'Change fields of a KPI alert rule', { body: 'merge' }),
  del('/v1/alert-rules/:rule_id/', deleteAlertRule, 'Delete a KPI alert rule and its alerts'),
  get('/v1/alerts/', listAlerts, 'List open KPI alerts'),
  get('/v1/webhooks/', listWebhooks, 'List webhook endpoints'),
  post('/v1/webhooks/', createWebhook, 'Create a webhook endpoint (the secret is shown once)', {
    body: 'merge',
    status: 201,
  }),
  get('/v1/webhooks/:webhook_id/', getWebhook, 'Get a webhook endpoint'),
  patch('/v1/webhooks/:webhook_id/', updateWebhook, 'Change a webhook endpoint', { body: 'merge' }),
  post('/v1/webhooks/:webhook_id/rotate-secret/', rotateWebhookSecret, 'Rotate the signing secret'),
  post('/v1/webhooks/:webhook_id/test/', sendTestWebhook, 'Send a webhook.test event', { status: 202 }),
  get('/v1/webhooks/:webhook_id/deliveries/', listWebhookDeliveries, 'Recent deliveries of an endpoint'),
  post(
    '/v1/webhooks/:webhook_id/deliveries/:delivery_id/replay/',
    replayWebhookDelivery,
    'Send a delivery again',
    { status: 202 },
  ),
  del('/v1/webhooks/:webhook_id/', deleteWebhook, 'Delete a webhook endpoint'),
];
