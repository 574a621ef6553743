import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type ImportCounts, ImportRejected, importData } from '../../db/import.ts';
import { CliError } from '../args.ts';
import { defineCommand, output } from '../command.ts';
import { parseImportFile } from '../import.ts';

/** At most this many problems are printed; the rest are counted. */
const SHOWN_PROBLEMS = 20;

/** A progress bar redrawn in place on stderr, only when stderr is a terminal. */
function progressBar(label: string): { update(done: number, total: number): void; end(): void } {
  const stream = process.stderr;
  if (!stream.isTTY) return { update() {}, end() {} };
  let last = -1;
  return {
    update(done, total) {
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      if (percent === last && done !== total) return;
      last = percent;
      const width = 30;
      const filled = Math.round((percent / 100) * width);
      stream.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${done}/${total}`,
      );
    },
    end() {
      if (last >= 0) stream.write('\n');
    },
  };
}

export const importCommand = defineCommand({
  name: 'import',
  usage: 'FILE --firm S [--json]',
  summary: 'load a JSON bundle or a metrics CSV into a firm, all or nothing',
  options: { firm: { type: 'string', required: true } },
  positionals: ['FILE'],
  async run(ctx, args) {
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
    const parsed = parseImportFile(basename(file), content);
    const bar = progressBar(`importing ${basename(file)}`);
    let counts: ImportCounts;
    try {
      counts = await importData(ctx.db, firm, parsed.data, {
        now: ctx.clock.now().toISOString(),
        problems: parsed.problems,
        onProgress: (done, total) => bar.update(done, total),
      });
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
