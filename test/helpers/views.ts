import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEWS_DIR } from '../../tools/views.ts';
import { buildViews, VIEW_NAMES } from '../../views/build.ts';

const sources = fileURLToPath(new URL('../../views/', import.meta.url));

function newestSource(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestSource(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

/** Builds the MCP Apps views into dist/views/ (as `npm run build` does) when missing or older than views/. */
export async function ensureViewsBuilt(): Promise<void> {
  const built = VIEW_NAMES.map((name) => join(VIEWS_DIR, `${name}.html`));
  const oldest = Math.min(...built.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)));
  if (oldest < newestSource(sources)) await buildViews(VIEWS_DIR);
}
