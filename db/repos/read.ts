// What a reader (a tool, a figure of analytics/) is handed: each repository's read methods only.
// The write methods, the change log, the outbox and the raw database handle stay with services/,
// which reach them through `db/repos/writable.ts` (an import `.dependency-cruiser.cjs` refuses to tools/).
import type { Repos } from './index.ts';

/** The read methods of each repository a reader may use; any other method is a write or internal. */
const READS = {
  firms: ['get', 'getBySlug', 'list', 'count'],
  users: ['get', 'getByEmail', 'list', 'companyAccess', 'activeInFirm', 'contacts'],
  companies: ['list', 'all', 'distinctValues', 'find', 'get', 'bySlugs', 'names'],
  metrics: ['categories', 'listCategories', 'list', 'recent', 'get', 'comments'],
  budgets: ['list', 'get', 'latest', 'figures', 'all', 'cadences'],
  documents: ['list', 'file', 'storedBytes', 'names'],
  documentParsing: ['content', 'search', 'unsearchable', 'passages'],
  notes: ['list', 'search', 'exists', 'withAuthors'],
  funds: ['list', 'get'],
  customColumns: ['listValues', 'listColumns', 'options', 'columnsByIds', 'valueId'],
  information: [
    'listRequests',
    'getRequest',
    'countedRequest',
    'requestedItems',
    'requestCompanies',
    'listReports',
    'companiesWithoutReport',
    'reportItems',
  ],
  contacts: ['list', 'get', 'ofCompanies', 'byEmail'],
  reportLinks: ['byHash', 'byId', 'ofReport'],
  analytics: [
    'latestDate',
    'latestDates',
    'seriesMany',
    'latestDueRequest',
    'latestBudgetFigures',
    'companyFunds',
    'allFxRates',
    'series',
    'fxRates',
    'notesOverview',
    'noteAuthors',
    'recentNotes',
  ],
  capTable: [
    'financings',
    'financingRefs',
    'financingsById',
    'shareClasses',
    'securities',
    'transactions',
    'fairValueOverrides',
    'fundRefs',
    'shareClassRefs',
    'ownershipOverrides',
    'postMoneyOverrides',
    'latestRates',
  ],
  events: ['list', 'latestSeqs'],
  extraction: ['document', 'proposals', 'openCount', 'settings'],
  companyLogos: ['get'],
  alerts: ['getRule', 'listRules', 'openAlerts', 'listOpen', 'openCounts', 'lateReports'],
  webhooks: ['listEndpoints', 'getEndpoint', 'getDelivery', 'listDeliveries'],
} as const satisfies { [K in keyof Repos]?: readonly (keyof Repos[K])[] };

type Reads = typeof READS;

/**
 * The repositories as a reader sees them: only the methods of `READS`, no change log, no write
 * repository (`metricWrites`, `informationWrites` …) and no database handle beyond an opaque key
 * (`db`, by which caches tell one database from another).
 */
export type ReadRepos = {
  readonly [K in keyof Reads]: Pick<Repos[K], Extract<Reads[K][number], keyof Repos[K]>>;
} & {
  readonly db: object;
};
