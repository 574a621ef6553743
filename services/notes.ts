import { newId } from '../db/ids.ts';
import type { NoteRow } from '../db/repos/notes.ts';
import {
  type Recorded,
  type Recorder,
  record,
  type ServiceContext,
  withRecorder,
  writableCompany,
} from './changes.ts';

/** The change-log row and the note.created event of a note written by any path (a tool, the importer). */
export function noteCreated(note: NoteRow): Recorded {
  const { firm_id: _firm, ...data } = note;
  return {
    change: {
      entity: 'notes',
      entityId: note.id,
      action: 'create',
      changes: { company_id: note.company_id, author_id: note.author_id, note: note.note },
    },
    event: {
      type: 'note.created',
      companyId: note.company_id,
      resourceType: 'note',
      resourceId: note.id,
      data,
    },
  };
}

export async function recordNotes(r: Recorder, notes: readonly NoteRow[]): Promise<void> {
  await record(r, ...notes.map(noteCreated));
}

/** Writes notes (of any company of the recorder's firm) in the recorder's transaction, with their records. */
export async function addNotes(r: Recorder, notes: NoteRow[]): Promise<void> {
  await r.repos.notes.createMany(notes);
  await recordNotes(r, notes);
}

/** Adds notes to one visible company, written as the caller, all or none. */
export async function createNotes(ctx: ServiceContext, companyId: string, texts: readonly string[]) {
  const { principal } = ctx;
  const company = await writableCompany(ctx, companyId, 'items[0].company_id');
  return withRecorder(ctx, async (repos, recorder) => {
    const rows: NoteRow[] = texts.map((note) => ({
      id: newId(),
      firm_id: principal.firm.id,
      company_id: company.id,
      author_id: principal.user.id,
      note,
      created_at: recorder.at,
    }));
    await addNotes(recorder, rows);
    return repos.notes.withAuthors(
      principal.firm.id,
      rows.map((r) => r.id),
    );
  });
}
