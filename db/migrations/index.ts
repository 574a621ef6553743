import type { Knex } from 'knex';
import * as initial from './001-initial.ts';
import * as standardCategories from './002-standard-categories.ts';
import * as partialBudgetIndex from './003-partial-budget-index.ts';
import * as demoMarks from './005-demo-marks.ts';
import * as oauthReplay from './006-oauth-replay.ts';
import * as fairValueOverrides from './008-fair-value-overrides.ts';
import * as noteSearch from './009-note-search.ts';
import * as changeLog from './010-change-log.ts';
import * as companyLogos from './013-company-logos.ts';
import * as documentParsing from './014-document-parsing.ts';
import * as capTableOverrides from './015-cap-table-overrides.ts';
import * as liveMetricsIndex from './016-live-metrics-index.ts';
import * as authVersion from './017-auth-version.ts';
import * as documentSearchVector from './018-document-search-vector.ts';
import * as events from './020-events.ts';
import * as webhooks from './021-webhooks.ts';
import * as alerts from './022-alerts.ts';
import * as searchStemming from './023-search-stemming.ts';
import * as informationLoop from './024-information-loop.ts';
import * as outboundMail from './025-outbound-mail.ts';
import * as extractionProposals from './026-extraction-proposals.ts';
import * as extractionSettings from './027-extraction-settings.ts';
import * as extractionRowFigures from './028-extraction-row-figures.ts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Migrations are listed here rather than read from the folder, so they load the same way under
// any runner and in any working directory.
const migrations: Record<string, Migration> = {
  '001-initial': initial,
  '002-standard-categories': standardCategories,
  '003-partial-budget-index': partialBudgetIndex,
  '005-demo-marks': demoMarks,
  '006-oauth-replay': oauthReplay,
  '008-fair-value-overrides': fairValueOverrides,
  '009-note-search': noteSearch,
  '010-change-log': changeLog,
  '013-company-logos': companyLogos,
  '014-document-parsing': documentParsing,
  '015-cap-table-overrides': capTableOverrides,
  '016-live-metrics-index': liveMetricsIndex,
  '017-auth-version': authVersion,
  '018-document-search-vector': documentSearchVector,
  '020-events': events,
  '021-webhooks': webhooks,
  '022-alerts': alerts,
  '023-search-stemming': searchStemming,
  '024-information-loop': informationLoop,
  '025-outbound-mail': outboundMail,
  '026-extraction-proposals': extractionProposals,
  '027-extraction-settings': extractionSettings,
  '028-extraction-row-figures': extractionRowFigures,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};
