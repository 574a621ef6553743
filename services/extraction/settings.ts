import { ToolError } from '../../core/errors.ts';
import type { Principal, User } from '../../core/principal.ts';
import { inTransaction, type Repos } from '../../db/repos/index.ts';
import { record, type ServiceContext, SYSTEM_ACTOR, withRecorder } from '../changes.ts';
import { confirmProposals } from './review.ts';
import { HIGH_CONFIDENCE } from './tables.ts';

export interface ExtractionSettings {
  auto_confirm: boolean;
  updated_at: string | null;
}

/** Sets whether the firm's high-confidence proposals from the collection loop's uploads are confirmed without review. */
export async function setExtractionSettings(
  ctx: ServiceContext,
  change: { auto_confirm: boolean },
): Promise<ExtractionSettings> {
  return withRecorder(ctx, async (repos, recorder) => {
    const before = await repos.extraction.settings(recorder.firmId);
    await repos.extraction.setAutoConfirm(recorder.firmId, change.auto_confirm, recorder.at);
    if (before.auto_confirm !== change.auto_confirm)
      await record(recorder, {
        change: {
          entity: 'firm_extraction_settings',
          entityId: recorder.firmId,
          action: 'update',
          changes: change,
        },
      });
    return { auto_confirm: change.auto_confirm, updated_at: recorder.at };
  });
}

/** The service itself confirming for a firm, with the company of the document only; metric history names it `system`. */
function servicePrincipal(firm: Principal['firm'], companyId: string): Principal {
  const user: User = {
    id: 'system',
    firm_id: firm.id,
    email: '',
    first_name: 'auto-confirmation',
    last_name: '',
    password_hash: '',
    role: 'editor',
    all_companies: false,
    can_view_documents: true,
    can_edit_cap_table: false,
    is_active: true,
    created_at: firm.created_at,
  };
  return {
    kind: 'user',
    key: 'system',
    tokenId: 'auto-confirm',
    user,
    firm,
    scope: { firmId: firm.id, companyIds: [companyId] },
    scopes: [],
  };
}

/**
 * When the firm asked for it and the document came through the collection loop (a founder's upload),
 * confirms its high-confidence proposals in the parse's transaction, keeping existing data (skip).
 * When the metrics service refuses them (two sheets give one point two values) they all stay for review
 * and the document waits for a person, its note saying why; the parse is recorded either way.
 */
export async function autoConfirm(
  repos: Repos,
  documentId: string,
  firmId: string,
  now: Date,
): Promise<{ state: string; note?: string } | undefined> {
  const doc = await repos.extraction.document({ firmId, companyIds: null }, documentId);
  if (doc?.source !== 'information-request' || !(await repos.extraction.settings(firmId)).auto_confirm)
    return;
  const ids = (await repos.extraction.proposals(documentId))
    .filter((p) => p.status === 'proposed' && p.category_id !== null && p.confidence >= HIGH_CONFIDENCE)
    .map((p) => p.id);
  const firm = await repos.firms.get(firmId);
  if (ids.length === 0 || !firm) return;
  const ctx: ServiceContext = {
    repos,
    clock: { now: () => now },
    principal: servicePrincipal(firm, doc.company_id),
    actor: SYSTEM_ACTOR,
  };
  try {
    // A savepoint of its own: a refusal undoes the confirmation, never the parse.
    const state = await inTransaction(
      repos,
      async (trx) =>
        (await confirmProposals({ ...ctx, repos: trx }, documentId, { ids, onConflict: 'skip' })).parse_state,
    );
    return { state };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const note = `not confirmed automatically: ${err.message}`.slice(0, 255);
    await repos.documents.awaitReview(documentId, note);
    return { state: 'needs-input', note };
  }
}
