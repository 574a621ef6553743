/**
 * The cast of the demo data set: firms, users, funds, companies with their financing histories,
 * custom metrics, custom columns and information requests. Everything numeric that is not listed
 * here is derived from these tables by the generators, with a seeded PRNG.
 */
import type { Role } from '../../core/principal.ts';
import { DATA_MONTHS, type Month } from './values.ts';

/** Operating models: which metrics a company reports and how its numbers behave. */
export type Model = 'saas' | 'marketplace' | 'fintech' | 'climate' | 'health' | 'biotech' | 'consumer';

export type Stage = 'Pre-seed' | 'Seed' | 'Series A' | 'Series B' | 'Series C';

export type RoundKind = 'priced' | 'safe' | 'note' | 'ipo' | 'token-saft' | 'token-sale' | 'token-warrant';

export type Seniority = 'SENIOR_TO_ALL' | 'PARI_PASSU' | 'PARI_PASSU_ALL_PREVIOUS';
export type Participation = 'NON_PARTICIPATING' | 'FULLY_PARTICIPATING' | 'CAPPED_PARTICIPATING';

export interface RoundPlan {
  name: string;
  date: string;
  /** Default: a priced equity round. */
  kind?: RoundKind;
  /** The stage that sizes the round; defaults to the round name. */
  stage?: Stage;
  /** The firm's fund led the round. */
  lead?: boolean;
  /** The fund also bought common shares from early holders (a secondary share class). */
  secondary?: boolean;
  /** The fund received warrants with the round; exercised on `exercisedAt` when set. */
  warrant?: { exercisedAt?: string };
  seniority?: Seniority;
  participation?: Participation;
  liquidationMultiple?: string;
  capMultiple?: string;
  /** Names of earlier rounds of the company that rank pari passu with this one. */
  pariPassuWith?: string[];
}

export type Status = 'active' | 'exited' | 'written-off' | 'public';

export interface CompanySpec {
  name: string;
  sector: string;
  firmSector: string;
  city: string;
  currency: string;
  fiscalYearEnd: string;
  status: Status;
  /** Exit or write-off date: the company stops reporting after it. */
  endDate?: string;
  /** Exit proceeds as a multiple of the latest round price. */
  exitMultiple?: number;
  model: Model;
  description: string;
  /** Key of the user who leads the investment. */
  lead: string;
  rounds: RoundPlan[];
  themes: string[];
  boardSeat?: string;
  /** Where its numbers usually come from. */
  source: string;
  /** Also reports quarterly and yearly revenue totals. */
  periodTotals?: boolean;
  /** Token symbol for crypto companies. */
  token?: string;
}

export interface UserSpec {
  key: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  role: Role;
  /** Slugs of the only companies the user may see; all companies when absent. */
  companies?: string[];
  documents: boolean;
  capTable: boolean;
}

export interface FundSpec {
  key: string;
  name: string;
  size: string;
  vintage: number;
  currency: string;
}

export interface CustomMetricSpec {
  name: string;
  type: 'number' | 'currency' | 'text' | 'select';
  pointInTime: boolean;
  choices?: string[];
  archived?: boolean;
}

export interface ColumnSpec {
  name: string;
  type: 'text' | 'select' | 'multi_select';
  options?: [string, string][];
}

export interface RequestSpec {
  name: string;
  period: 'quarter' | 'year';
  start: string;
  end: string;
  due: string;
  status: 'open' | 'closed';
}

export interface FirmSpec {
  key: string;
  slug: string;
  name: string;
  currency: string;
  country: string;
  city: string;
  createdAt: string;
  /** Prefix of the companies' unique_ref. */
  refPrefix: string;
  users: UserSpec[];
  funds: FundSpec[];
  companies: CompanySpec[];
  /** The months of monthly metrics. */
  months: readonly Month[];
  /** When set, companies report only these standard categories. */
  categories?: string[];
  customMetrics: CustomMetricSpec[];
  customColumns: ColumnSpec[];
  requests: RequestSpec[];
  /** Which fund holds a security issued on `date` to a company first backed on `firstDate`. */
  fundFor(date: string, firstDate: string): string;
  /** Co-investors drawn for the rounds. */
  coInvestors: string[];
  /** Notes per company: [min, max]. */
  notesPerCompany: [number, number];
  /** Share of companies with budgets. */
  budgetShare: number;
}

export { slugify } from '../../core/slug.ts';

// ---- Demo Ventures ---------------------------------------------------------------------------

const DEMO_PASSWORD = 'demo-password';

const demoUsers: UserSpec[] = [
  {
    key: 'demo',
    email: 'demo@example.com',
    password: DEMO_PASSWORD,
    firstName: 'Dana',
    lastName: 'Reyes',
    role: 'admin',
    documents: true,
    capTable: true,
  },
  {
    key: 'editor',
    email: 'editor@example.com',
    password: DEMO_PASSWORD,
    firstName: 'Sam',
    lastName: 'Okafor',
    role: 'editor',
    documents: true,
    capTable: false,
  },
  {
    key: 'viewer',
    email: 'viewer@example.com',
    password: DEMO_PASSWORD,
    firstName: 'Priya',
    lastName: 'Natarajan',
    role: 'viewer',
    documents: true,
    capTable: false,
  },
  {
    key: 'analyst',
    email: 'analyst@example.com',
    password: DEMO_PASSWORD,
    firstName: 'Jonas',
    lastName: 'Berg',
    role: 'viewer',
    companies: ['lumen-analytics', 'verdant-grid', 'kirana-cloud'],
    documents: false,
    capTable: false,
  },
];

const demoFunds: FundSpec[] = [
  { key: 'fund1', name: 'Demo Ventures Fund I', size: '75000000.00', vintage: 2019, currency: 'USD' },
  { key: 'fund2', name: 'Demo Ventures Fund II', size: '150000000.00', vintage: 2022, currency: 'USD' },
  { key: 'opp', name: 'Demo Ventures Opportunity Fund', size: '60000000.00', vintage: 2024, currency: 'USD' },
];

const demoCompanies: CompanySpec[] = [
  {
    name: 'Lumen Analytics',
    sector: 'SaaS',
    firmSector: 'Enterprise Software',
    city: 'San Francisco',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description:
      'Product analytics for B2B software teams: event pipelines, funnels and retention cohorts without a data team.',
    lead: 'demo',
    source: 'integration:quickbooks',
    periodTotals: true,
    themes: ['Vertical SaaS', 'AI'],
    boardSeat: 'Board member (Dana Reyes)',
    rounds: [
      { name: 'Seed', date: '2019-04-18', lead: true },
      { name: 'Series A', date: '2021-03-09' },
      {
        name: 'Series B',
        date: '2023-06-21',
        secondary: true,
        seniority: 'PARI_PASSU',
        pariPassuWith: ['Series A'],
      },
    ],
  },
  {
    name: 'Ledgerline',
    sector: 'Fintech',
    firmSector: 'Financial Services',
    city: 'New York',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'fintech',
    description:
      'Spend management and corporate cards for mid-market finance teams, with real-time accounting sync.',
    lead: 'editor',
    source: 'integration:netsuite',
    themes: ['Embedded finance', 'B2B'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2020-02-12', lead: true },
      { name: 'Series A', date: '2022-01-26' },
      { name: 'Series B', date: '2024-09-17' },
    ],
  },
  {
    name: 'Harbor Health',
    sector: 'Health',
    firmSector: 'Healthcare',
    city: 'Boston',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'health',
    description: 'Virtual-first primary care for employers, with in-network clinicians in 30 US states.',
    lead: 'demo',
    source: 'information-request',
    themes: ['Digital health', 'B2B'],
    boardSeat: 'Board member (Dana Reyes)',
    rounds: [
      { name: 'Seed', date: '2019-11-05', lead: true },
      { name: 'Series A', date: '2022-05-18' },
      { name: 'Series B', date: '2025-03-11' },
    ],
  },
  {
    name: 'Verdant Grid',
    sector: 'Climate',
    firmSector: 'Sustainability',
    city: 'Berlin',
    currency: 'EUR',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'climate',
    description:
      'Grid-scale battery storage projects with software that trades flexibility on European power markets.',
    lead: 'demo',
    source: 'integration:datev',
    periodTotals: true,
    themes: ['Climate', 'Deep tech'],
    boardSeat: 'Board member (Dana Reyes)',
    rounds: [
      { name: 'Seed', date: '2020-06-23' },
      { name: 'Series A', date: '2022-09-14', lead: true, warrant: { exercisedAt: '2025-01-28' } },
      { name: 'Series B', date: '2025-01-28', participation: 'FULLY_PARTICIPATING' },
    ],
  },
  {
    name: 'Tradewind Market',
    sector: 'Marketplace',
    firmSector: 'Consumer & Commerce',
    city: 'London',
    currency: 'GBP',
    fiscalYearEnd: '03-31',
    status: 'active',
    model: 'marketplace',
    description: 'B2B wholesale marketplace connecting independent retailers with emerging consumer brands.',
    lead: 'editor',
    source: 'integration:xero',
    themes: ['Marketplace', 'B2B'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2019-07-09', lead: true },
      { name: 'Series A', date: '2021-10-19' },
      { name: 'Bridge', date: '2022-11-08', kind: 'note' },
      { name: 'Series B', date: '2023-11-14' },
    ],
  },
  {
    name: 'Forgeworks',
    sector: 'Devtools',
    firmSector: 'Infrastructure',
    city: 'Austin',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description:
      'Continuous integration that caches builds across monorepos; open-source core with a hosted tier.',
    lead: 'editor',
    source: 'integration:quickbooks',
    themes: ['Open source', 'Infrastructure'],
    boardSeat: 'Board member (Sam Okafor)',
    rounds: [
      { name: 'Pre-seed', date: '2020-01-21', kind: 'safe' },
      { name: 'Seed', date: '2021-05-04', lead: true },
      { name: 'Series A', date: '2023-02-07' },
    ],
  },
  {
    name: 'Cortex Labs',
    sector: 'AI',
    firmSector: 'Frontier Tech',
    city: 'San Francisco',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description:
      'Agents that automate back-office workflows in insurance claims, with human review built in.',
    lead: 'demo',
    source: 'upload',
    themes: ['AI', 'Vertical SaaS'],
    boardSeat: 'Board member (Dana Reyes)',
    rounds: [
      { name: 'Seed', date: '2022-08-16', lead: true },
      { name: 'Series A', date: '2023-12-05' },
      { name: 'Series B', date: '2025-08-19', secondary: true },
    ],
  },
  {
    name: 'Northern Loop',
    sector: 'Logistics',
    firmSector: 'Frontier Tech',
    city: 'Toronto',
    currency: 'CAD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'climate',
    description:
      'Electric last-mile delivery robots leased to grocers and parcel carriers in Canadian cities.',
    lead: 'editor',
    source: 'information-request',
    themes: ['Climate', 'Deep tech'],
    boardSeat: 'None',
    rounds: [
      { name: 'Seed', date: '2020-09-15' },
      { name: 'Series A', date: '2022-11-22', lead: true },
    ],
  },
  {
    name: 'Kirana Cloud',
    sector: 'SaaS',
    firmSector: 'Enterprise Software',
    city: 'Bengaluru',
    currency: 'INR',
    fiscalYearEnd: '03-31',
    status: 'active',
    model: 'saas',
    description: 'Inventory, billing and credit software for neighbourhood retailers across India.',
    lead: 'editor',
    source: 'integration:tally',
    periodTotals: true,
    themes: ['Vertical SaaS', 'Embedded finance'],
    boardSeat: 'Board member (Sam Okafor)',
    rounds: [
      { name: 'Seed', date: '2021-01-19', lead: true },
      { name: 'Series A', date: '2022-07-12' },
      { name: 'Series B', date: '2024-11-26' },
    ],
  },
  {
    name: 'Paisa Flow',
    sector: 'Fintech',
    firmSector: 'Financial Services',
    city: 'Mumbai',
    currency: 'INR',
    fiscalYearEnd: '03-31',
    status: 'active',
    model: 'fintech',
    description:
      'Payment orchestration and reconciliation for Indian merchants on UPI, cards and net banking.',
    lead: 'editor',
    source: 'information-request',
    themes: ['Embedded finance', 'Infrastructure'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2022-02-15', lead: true },
      { name: 'Series A', date: '2024-04-23' },
    ],
  },
  {
    name: 'Quill Learning',
    sector: 'Edtech',
    firmSector: 'Consumer & Commerce',
    city: 'Amsterdam',
    currency: 'EUR',
    fiscalYearEnd: '12-31',
    status: 'exited',
    endDate: '2025-05-20',
    exitMultiple: 1.6,
    model: 'saas',
    description:
      'Writing feedback for secondary schools; acquired by a European education publisher in 2025.',
    lead: 'demo',
    source: 'upload',
    themes: ['AI', 'Consumer'],
    boardSeat: 'None (exited)',
    rounds: [
      { name: 'Seed', date: '2019-03-12', lead: true },
      { name: 'Series A', date: '2021-06-15', liquidationMultiple: '1.50' },
    ],
  },
  {
    name: 'Sentinel Shield',
    sector: 'Security',
    firmSector: 'Infrastructure',
    city: 'Tel Aviv',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description:
      'Identity threat detection that spots compromised service accounts and tokens across clouds.',
    lead: 'demo',
    source: 'integration:quickbooks',
    themes: ['Infrastructure', 'AI'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2020-11-03' },
      { name: 'Series A', date: '2022-06-08', lead: true },
      {
        name: 'Series B',
        date: '2024-05-14',
        secondary: true,
        seniority: 'PARI_PASSU',
        pariPassuWith: ['Series A', 'Seed'],
      },
    ],
  },
  {
    name: 'Bloom & Barrow',
    sector: 'Consumer',
    firmSector: 'Consumer & Commerce',
    city: 'Manchester',
    currency: 'GBP',
    fiscalYearEnd: '12-31',
    status: 'written-off',
    endDate: '2024-03-29',
    model: 'consumer',
    description:
      'Direct-to-consumer garden plants and subscriptions; wound down in 2024 after a failed raise.',
    lead: 'editor',
    source: 'upload',
    themes: ['Consumer'],
    rounds: [
      { name: 'Seed', date: '2020-05-19', lead: true },
      {
        name: 'Series A',
        date: '2022-02-22',
        liquidationMultiple: '1.50',
        participation: 'FULLY_PARTICIPATING',
      },
    ],
  },
  {
    name: 'Tidal Carbon',
    sector: 'Climate',
    firmSector: 'Sustainability',
    city: 'Vancouver',
    currency: 'CAD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'climate',
    description: 'Ocean-alkalinity carbon removal with measured, verified credits sold to corporate buyers.',
    lead: 'demo',
    source: 'information-request',
    themes: ['Climate', 'Deep tech'],
    boardSeat: 'Board member (Dana Reyes)',
    rounds: [
      { name: 'Seed', date: '2021-08-10', lead: true },
      { name: 'Series A', date: '2023-09-26' },
    ],
  },
  {
    name: 'Helix Bio',
    sector: 'Biotech',
    firmSector: 'Healthcare',
    city: 'Cambridge',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'biotech',
    description: 'Programmable RNA therapeutics for rare liver diseases; lead programme in phase 1.',
    lead: 'demo',
    source: 'information-request',
    themes: ['Deep tech'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2019-10-22', lead: true },
      { name: 'Series A', date: '2021-11-16' },
      { name: 'Series B', date: '2024-02-27' },
    ],
  },
  {
    name: 'Orbit Freight',
    sector: 'Marketplace',
    firmSector: 'Consumer & Commerce',
    city: 'Chicago',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'exited',
    endDate: '2024-10-08',
    exitMultiple: 2.4,
    model: 'marketplace',
    description: 'Digital freight brokerage for mid-size shippers; acquired by a logistics group in 2024.',
    lead: 'editor',
    source: 'integration:quickbooks',
    themes: ['Marketplace', 'B2B'],
    boardSeat: 'None (exited)',
    rounds: [
      { name: 'Seed', date: '2019-01-15', lead: true },
      { name: 'Series A', date: '2020-08-25' },
      { name: 'Series B', date: '2022-04-12' },
    ],
  },
  {
    name: 'Pixel Pantry',
    sector: 'Consumer',
    firmSector: 'Consumer & Commerce',
    city: 'Paris',
    currency: 'EUR',
    fiscalYearEnd: '12-31',
    status: 'written-off',
    endDate: '2023-06-30',
    model: 'consumer',
    description: 'Meal kits built around local producers; closed in 2023.',
    lead: 'editor',
    source: 'upload',
    themes: ['Consumer', 'Marketplace'],
    rounds: [
      { name: 'Seed', date: '2019-12-03' },
      { name: 'Series A', date: '2021-09-21', lead: true },
    ],
  },
  {
    name: 'Atlas Ledger',
    sector: 'Fintech',
    firmSector: 'Financial Services',
    city: 'Dublin',
    currency: 'EUR',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description:
      'Treasury management for multi-entity groups: cash positioning, forecasting and FX exposure.',
    lead: 'demo',
    source: 'integration:xero',
    themes: ['Embedded finance', 'Vertical SaaS'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2021-04-13', lead: true },
      { name: 'Series A', date: '2023-05-23' },
    ],
  },
  {
    name: 'Nimbus DB',
    sector: 'Devtools',
    firmSector: 'Infrastructure',
    city: 'Seattle',
    currency: 'USD',
    fiscalYearEnd: '01-31',
    status: 'public',
    model: 'saas',
    description: 'Serverless Postgres-compatible database; listed on Nasdaq in November 2025.',
    lead: 'demo',
    source: 'integration:netsuite',
    periodTotals: true,
    themes: ['Infrastructure', 'Open source'],
    boardSeat: 'None (public)',
    rounds: [
      { name: 'Series B', date: '2019-02-19' },
      { name: 'Series C', date: '2021-07-13', lead: true },
      { name: 'Series D', date: '2023-10-10', stage: 'Series C' },
      { name: 'IPO', date: '2025-11-13', kind: 'ipo' },
    ],
  },
  {
    name: 'Mosaic HR',
    sector: 'SaaS',
    firmSector: 'Enterprise Software',
    city: 'Lisbon',
    currency: 'EUR',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description: 'HR and payroll for distributed European teams, with local compliance in 14 countries.',
    lead: 'editor',
    source: 'integration:xero',
    themes: ['Vertical SaaS', 'B2B'],
    boardSeat: 'Board member (Sam Okafor)',
    rounds: [
      { name: 'Seed', date: '2022-03-29', lead: true },
      { name: 'Series A', date: '2024-06-18' },
    ],
  },
  {
    name: 'Kinetic Fleet',
    sector: 'Climate',
    firmSector: 'Sustainability',
    city: 'Munich',
    currency: 'EUR',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'climate',
    description: 'Charging and energy management for electric truck fleets at depots.',
    lead: 'demo',
    source: 'information-request',
    themes: ['Climate', 'Infrastructure'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2021-02-16' },
      { name: 'Series A', date: '2022-10-25', lead: true },
      { name: 'Series B', date: '2025-06-10' },
    ],
  },
  {
    name: 'Driftwood Logistics',
    sector: 'Marketplace',
    firmSector: 'Consumer & Commerce',
    city: 'Singapore',
    currency: 'SGD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'marketplace',
    description: 'Cross-border trucking marketplace for Southeast Asian shippers and carriers.',
    lead: 'editor',
    source: 'information-request',
    themes: ['Marketplace', 'B2B'],
    boardSeat: 'None',
    rounds: [
      { name: 'Seed', date: '2021-07-20', lead: true },
      { name: 'Series A', date: '2023-08-29' },
    ],
  },
  {
    name: 'Chainbridge Protocol',
    sector: 'Web3',
    firmSector: 'Frontier Tech',
    city: 'Zug',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description:
      'Cross-chain settlement infrastructure for payment companies; network secured by the CBR token.',
    lead: 'demo',
    source: 'upload',
    token: 'CBR',
    themes: ['Infrastructure', 'Embedded finance'],
    boardSeat: 'None',
    rounds: [
      { name: 'Seed', date: '2021-06-08', lead: true },
      { name: 'Token pre-sale', date: '2021-12-14', kind: 'token-saft' },
      { name: 'Token generation event', date: '2022-05-10', kind: 'token-sale' },
      { name: 'Ecosystem round', date: '2023-03-21', kind: 'token-warrant' },
    ],
  },
  {
    name: 'Cobalt Health AI',
    sector: 'AI',
    firmSector: 'Healthcare',
    city: 'Toronto',
    currency: 'CAD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'health',
    description:
      'Ambient clinical documentation that drafts notes from patient visits in English and French.',
    lead: 'demo',
    source: 'upload',
    themes: ['AI', 'Digital health'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2023-01-24', lead: true },
      { name: 'Series A', date: '2025-02-25' },
    ],
  },
  {
    name: 'Furrow',
    sector: 'Climate',
    firmSector: 'Sustainability',
    city: 'Denver',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description: 'Soil-carbon measurement and farm-level emissions reporting for food companies.',
    lead: 'editor',
    source: 'integration:quickbooks',
    themes: ['Climate', 'Vertical SaaS'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2022-04-19', lead: true },
      { name: 'Series A', date: '2024-03-12' },
    ],
  },
  {
    name: 'Beacon Insure',
    sector: 'Fintech',
    firmSector: 'Financial Services',
    city: 'London',
    currency: 'GBP',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'fintech',
    description: 'Embedded insurance for small-business platforms: quote, bind and claims through one API.',
    lead: 'editor',
    source: 'information-request',
    themes: ['Embedded finance', 'Infrastructure'],
    boardSeat: 'Board member (Sam Okafor)',
    rounds: [
      { name: 'Seed', date: '2020-10-06', lead: true },
      { name: 'Series A', date: '2022-12-13', warrant: {} },
      {
        name: 'Series B',
        date: '2025-04-15',
        participation: 'CAPPED_PARTICIPATING',
        capMultiple: '3.00',
        liquidationMultiple: '1.00',
      },
    ],
  },
  {
    name: 'Vela Voice',
    sector: 'AI',
    firmSector: 'Frontier Tech',
    city: 'New York',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'saas',
    description: 'Voice agents that answer and schedule calls for home-services businesses.',
    lead: 'demo',
    source: 'upload',
    themes: ['AI', 'Vertical SaaS'],
    boardSeat: 'Board member (Dana Reyes)',
    rounds: [
      { name: 'Pre-seed', date: '2023-05-16', kind: 'safe' },
      { name: 'Seed', date: '2024-01-30', lead: true },
      { name: 'Series A', date: '2025-10-07' },
    ],
  },
  {
    name: 'Quarry',
    sector: 'Marketplace',
    firmSector: 'Consumer & Commerce',
    city: 'Austin',
    currency: 'USD',
    fiscalYearEnd: '12-31',
    status: 'active',
    model: 'marketplace',
    description: 'Marketplace for construction aggregates and materials with same-day delivery to job sites.',
    lead: 'editor',
    source: 'integration:quickbooks',
    themes: ['Marketplace', 'B2B'],
    boardSeat: 'Board observer',
    rounds: [
      { name: 'Seed', date: '2021-11-09', lead: true },
      { name: 'Series A', date: '2023-10-17' },
    ],
  },
];

const DEMO_CO_INVESTORS = [
  'Blue Harbor Partners',
  'Summit Peak Ventures',
  'Granite Capital',
  'Foundry Lane',
  'Halcyon Ventures',
  'Ridgeline Capital',
  'Meridian Growth',
  'Copperleaf Ventures',
  'Lighthouse Partners',
  'Kestrel Ventures',
  'Oakmont Partners',
  'Northgate Capital',
  'Saltwater Ventures',
  'Pinecrest Growth',
  'Tessellate Capital',
  'Juniper Square Angels',
  'Open Field Capital',
  'Arcadia Growth Equity',
];

const demoCustomMetrics: CustomMetricSpec[] = [
  { name: 'NPS', type: 'number', pointInTime: true },
  { name: 'Active Users', type: 'number', pointInTime: true },
  { name: 'Customer Count', type: 'number', pointInTime: true },
  { name: 'Gross Merchandise Value', type: 'currency', pointInTime: false },
  { name: 'Board Sentiment', type: 'text', pointInTime: true },
  { name: 'Plan Status', type: 'select', pointInTime: true, choices: ['On track', 'At risk', 'Off track'] },
  { name: 'Legacy Health Score', type: 'number', pointInTime: true, archived: true },
];

const demoColumns: ColumnSpec[] = [
  { name: 'Board Seat', type: 'text' },
  {
    name: 'Stage',
    type: 'select',
    options: [
      ['Pre-seed', '#94a3b8'],
      ['Seed', '#22c55e'],
      ['Series A', '#3b82f6'],
      ['Series B', '#8b5cf6'],
      ['Series C+', '#f97316'],
      ['Public', '#0ea5e9'],
      ['Exited', '#64748b'],
      ['Written off', '#ef4444'],
    ],
  },
  {
    name: 'Themes',
    type: 'multi_select',
    options: [
      ['AI', '#6366f1'],
      ['Climate', '#16a34a'],
      ['Vertical SaaS', '#0891b2'],
      ['Embedded finance', '#ca8a04'],
      ['Open source', '#475569'],
      ['Marketplace', '#db2777'],
      ['Consumer', '#f43f5e'],
      ['Deep tech', '#7c3aed'],
      ['Infrastructure', '#0f766e'],
      ['Digital health', '#059669'],
      ['B2B', '#2563eb'],
    ],
  },
];

const quarterRequest = (year: number, q: number, status: 'open' | 'closed'): RequestSpec => {
  const endMonth = q * 3;
  const end = new Date(Date.UTC(year, endMonth, 0)).toISOString().slice(0, 10);
  const due = new Date(Date.UTC(year, endMonth + 1, 0)).toISOString().slice(0, 10);
  return {
    name: `Q${q} ${year} Update`,
    period: 'quarter',
    start: `${year}-${String(endMonth - 2).padStart(2, '0')}-01`,
    end,
    due,
    status,
  };
};

const demoRequests: RequestSpec[] = [
  quarterRequest(2025, 1, 'closed'),
  quarterRequest(2025, 2, 'closed'),
  quarterRequest(2025, 3, 'closed'),
  {
    name: 'FY2025 Annual Report',
    period: 'year',
    start: '2025-01-01',
    end: '2025-12-31',
    due: '2026-03-31',
    status: 'closed',
  },
  quarterRequest(2026, 1, 'closed'),
  quarterRequest(2026, 2, 'closed'),
  quarterRequest(2026, 3, 'open'),
];

export const DEMO_FIRM: FirmSpec = {
  key: 'demo',
  slug: 'demo',
  name: 'Demo Ventures',
  currency: 'USD',
  country: 'US',
  city: 'San Francisco',
  createdAt: '2021-09-01T09:00:00.000Z',
  refPrefix: 'DV',
  users: demoUsers,
  funds: demoFunds,
  companies: demoCompanies,
  months: DATA_MONTHS,
  customMetrics: demoCustomMetrics,
  customColumns: demoColumns,
  requests: demoRequests,
  fundFor(date, firstDate) {
    if (date >= '2024-01-01' && firstDate < '2024-01-01') return 'opp';
    return date >= '2022-01-01' ? 'fund2' : 'fund1';
  },
  coInvestors: DEMO_CO_INVESTORS,
  notesPerCompany: [3, 10],
  budgetShare: 0.5,
};

// ---- Northwind Capital: a second, smaller firm, so isolation between firms can be seen -------

export const NORTHWIND_FIRM: FirmSpec = {
  key: 'northwind',
  slug: 'northwind',
  name: 'Northwind Capital',
  currency: 'EUR',
  country: 'NL',
  city: 'Amsterdam',
  createdAt: '2023-02-01T09:00:00.000Z',
  refPrefix: 'NW',
  users: [
    {
      key: 'nwadmin',
      email: 'admin@northwind.example',
      password: 'northwind-password',
      firstName: 'Maren',
      lastName: 'de Vries',
      role: 'admin',
      documents: true,
      capTable: true,
    },
  ],
  funds: [
    { key: 'nw1', name: 'Northwind Capital Fund I', size: '120000000.00', vintage: 2021, currency: 'EUR' },
  ],
  companies: [
    {
      name: 'Fjordline Energy',
      sector: 'Climate',
      firmSector: 'Energy Transition',
      city: 'Rotterdam',
      currency: 'EUR',
      fiscalYearEnd: '12-31',
      status: 'active',
      model: 'climate',
      description: 'Shore power and battery systems for ferries and harbour vessels in the North Sea.',
      lead: 'nwadmin',
      source: 'information-request',
      themes: [],
      rounds: [{ name: 'Series A', date: '2023-04-18', lead: true }],
    },
    {
      name: 'Brightwater Analytics',
      sector: 'SaaS',
      firmSector: 'Software',
      city: 'London',
      currency: 'GBP',
      fiscalYearEnd: '12-31',
      status: 'active',
      model: 'saas',
      description: 'Water-network leak detection from acoustic sensors, sold to utilities.',
      lead: 'nwadmin',
      source: 'upload',
      themes: [],
      rounds: [{ name: 'Seed', date: '2023-09-12', lead: true }],
    },
    {
      name: 'Solberg Mobility',
      sector: 'Mobility',
      firmSector: 'Energy Transition',
      city: 'Stockholm',
      currency: 'SEK',
      fiscalYearEnd: '12-31',
      status: 'active',
      model: 'marketplace',
      description: 'E-bike subscriptions for commuters, with service vans in six Nordic cities.',
      lead: 'nwadmin',
      source: 'integration:fortnox',
      themes: [],
      rounds: [{ name: 'Seed', date: '2024-03-05', lead: true }],
    },
  ],
  months: DATA_MONTHS.slice(36),
  categories: ['revenue', 'gross_margin', 'net_burn', 'cash_in_bank', 'headcount', 'runway'],
  customMetrics: [],
  customColumns: [
    {
      name: 'Priority',
      type: 'select',
      options: [
        ['High', '#dc2626'],
        ['Medium', '#f59e0b'],
        ['Low', '#10b981'],
      ],
    },
  ],
  requests: [
    {
      name: 'Q2 2026 Review',
      period: 'quarter',
      start: '2026-04-01',
      end: '2026-06-30',
      due: '2026-07-31',
      status: 'closed',
    },
  ],
  fundFor: () => 'nw1',
  coInvestors: ['Dune Capital', 'Baltic Bridge Ventures', 'Polder Partners', 'Skagen Growth'],
  notesPerCompany: [2, 3],
  budgetShare: 0.34,
};

export const FIRMS: readonly FirmSpec[] = [DEMO_FIRM, NORTHWIND_FIRM];
