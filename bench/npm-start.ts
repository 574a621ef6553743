// `npm start`'s command from package.json (heap flags, scripts/start.mjs serve): what operators run, and
// so what the benchmarks that measure the server start. Its leading NAME=value words are the environment
// it sets (the allocator's arena limit); the rest, after `node`, are the arguments.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const words = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start.split(' ');
const isSetting = (w: string) => /^[A-Z_][A-Z0-9_]*=/.test(w);

/** The environment `npm start` sets. */
export const startEnv: Record<string, string> = Object.fromEntries(
  words.filter(isSetting).map((w) => w.split('=', 2) as [string, string]),
);
/** The arguments `npm start` gives node (scripts/start.mjs builds dist/ when a source changed). */
export const startCommand: string[] = words.filter((w) => !isSetting(w)).slice(1);
