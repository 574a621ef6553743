import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * TEST_COMPILED=1 runs the end-to-end tests against the compiled build in dist/ (`npm run build`)
 * instead of the TypeScript sources: the in-process server and the child-process CLI both come from there.
 */
export const compiled = process.env.TEST_COMPILED === '1';

const root = fileURLToPath(new URL('../..', import.meta.url));

function checkBuilt(file: string): string {
  if (!existsSync(`${root}/${file}`))
    throw new Error(`TEST_COMPILED=1 but ${file} is missing: run npm run build`);
  return file;
}

/** The `portfolio` command, relative to the project root: the bundle npm start and npx portfolio run. */
export const cliEntry = compiled ? checkBuilt('dist/bundle/portfolio.js') : 'cli/portfolio.mjs';

/** The server module: server/http.ts, or its compiled dist/server/http.js. */
export async function serverModules(): Promise<{
  http: typeof import('../../server/http.ts');
  config: typeof import('../../server/config.ts');
}> {
  if (!compiled) {
    return { http: await import('../../server/http.ts'), config: await import('../../server/config.ts') };
  }
  // Paths held in variables: the type-checker must not look for dist/ (it may not be built).
  const http = `${root}/${checkBuilt('dist/server/http.js')}`;
  const config = `${root}/${checkBuilt('dist/server/config.js')}`;
  return { http: await import(http), config: await import(config) };
}
