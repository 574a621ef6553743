import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ImportCounts } from '../../services/import.ts';
import { defineCommand, output } from '../command.ts';
import { CliError } from '../errors.ts';

/** At most this many problems are printed; the rest are counted. */
const SHOWN_PROBLEMS = 20;

/** A progress bar on stderr when it is a terminal; nothing at all otherwise (pipes, logs, tests). */
async function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  if (!stream.isTTY) return { update() {}, end() {} };
  const cliProgress = (await import('cli-progress')).default;
  const bar = new cliProgress.SingleBar(
    { stream, format: `${label} [{bar}] {percentage}% {value}/{total}`, hideCursor: true },
    cliProgress.Presets.legacy,
  );
  let started = false;
  return {
    update(done: number, total: number) {
      if (started) {
        bar.setTotal(total);
        bar.update(done);
      } else {
        bar.start(total, done);
        started = true;
      }
    },
    end() {
      if (started) bar.stop();
    },
  };
}

export const importCommand = defineCommand({
  name: 'import',
  summary: 'load a JSON bundle, a metrics CSV or a contacts CSV into a firm, all or nothing',
  options: {
    firm: { type: 'string', value: 'slug', required: true, description: 'the firm to load into' },
  },
  arguments: {
    FILE: 'a JSON bundle (.json), a metrics CSV (.csv) or a contacts CSV (header company_slug,name,email)',
  },
  async run(ctx, args) {
    // The importer and its parsers are loaded here, not with the command table: other commands never need them.
    const [
      { ImportRejected, importData },
      { importContacts },
      { isContactsCsv, parseContactsCsv, parseImportFile },
    ] = await Promise.all([
      import('../../services/import.ts'),
      import('../../services/contacts.ts'),
      import('../import.ts'),
    ]);
    const file = args.positionals[0]!;
    const firm = await ctx.repos.firms.getBySlug(args.need('firm'));
    if (!firm)
      throw new CliError(`no firm with slug "${args.need('firm')}"; "portfolio firms list" shows them`);
    let content: string;
    try {
      content = await readFile(file, 'utf8');
    } catch (err) {
      throw new CliError(
        `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    const now = ctx.clock.now().toISOString();
    const bar = await progressBar(`importing ${basename(file)}`);
    let counts: ImportCounts;
    try {
      if (!basename(file).toLowerCase().endsWith('.json') && isContactsCsv(content)) {
        const { contacts, problems } = parseContactsCsv(content);
        counts = await importContacts(ctx.repos, firm, contacts, { now, problems });
      } else {
        const parsed = parseImportFile(basename(file), content);
        counts = await importData(ctx.db, firm, parsed.data, {
          now,
          problems: parsed.problems,
          onProgress: (done, total) => bar.update(done, total),
        });
      }
    } catch (err) {
      if (!(err instanceof ImportRejected)) throw err;
      const { problems } = err;
      const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `${p.where}: ${p.message}`);
      if (problems.length > SHOWN_PROBLEMS) shown.push(`… and ${problems.length - SHOWN_PROBLEMS} more`);
      ctx.io.err(`${shown.join('\n')}\n`);
      throw new CliError(`${file}: ${problems.length} problem(s), nothing was imported`);
    } finally {
      bar.end();
    }
    output(ctx, counts, () => [
      `created ${counts.created}, updated ${counts.updated}, skipped ${counts.skipped}`,
    ]);
  },
});
