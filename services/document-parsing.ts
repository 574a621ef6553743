import type { ParseJob, ParseOutcome } from '../db/repos/document-parsing.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';
import { record, SYSTEM_ACTOR } from './changes.ts';
import { autoConfirm } from './extraction/settings.ts';

/**
 * Records how a claimed parse ended, with its text and its document.parsed event (metadata only,
 * never the text), in one transaction; a founder's spreadsheet is confirmed in it when the firm asked for that. False when the claim is no longer held: nothing is written then.
 */
export function finishParse(repos: Repos, job: ParseJob, outcome: ParseOutcome, now: Date): Promise<boolean> {
  const at = now.toISOString();
  return inTransaction(repos, async (trx) => {
    const doc = await trx.documentParsing.finish(job, outcome, at);
    if (!doc) return false;
    if (outcome.state === 'completed' && outcome.proposals?.rows.length) {
      const confirmed = await autoConfirm(trx, job.id, doc.firm_id, now);
      if (confirmed) {
        doc.parse_state = confirmed.state;
        if (confirmed.state === 'completed') doc.parse_note = null;
        if (confirmed.note) doc.parse_note = confirmed.note;
      }
    }
    await record(
      { repos: trx, firmId: doc.firm_id, actor: SYSTEM_ACTOR, at },
      {
        event: {
          type: 'document.parsed',
          companyId: doc.company_id,
          resourceType: 'document',
          resourceId: job.id,
          data: {
            id: job.id,
            company_id: doc.company_id,
            name: doc.name,
            parse_state: doc.parse_state,
            parsed_at: at,
            parse_note: doc.parse_note,
            ...(outcome.state === 'completed'
              ? { format: outcome.format, pages: outcome.pages, char_count: outcome.text.length }
              : {}),
          },
        },
      },
    );
    return true;
  });
}
