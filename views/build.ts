// Builds each view into one self-contained HTML file (inline script and style, nothing fetched) with esbuild.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));

export const VIEW_NAMES = ['company', 'screen', 'fund'] as const;

const TITLES: Record<(typeof VIEW_NAMES)[number], string> = {
  company: 'Company dashboard',
  screen: 'Portfolio screen',
  fund: 'Fund performance',
};

/**
 * zod (under the MCP client the App class is built on) ships messages in some fifty languages behind one
 * namespace object; a view only ever shows English ones, so the others are left out of the bundle.
 */
const englishOnly: esbuild.Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: fileURLToPath(new URL('.', `file://${args.path}`)),
    }));
  },
};

export interface BuiltView {
  name: string;
  bytes: number;
  gzipped: number;
}

function page(name: (typeof VIEW_NAMES)[number], css: string, js: string): string {
  // An inline script ends at the first "</script", wherever it stands.
  const script = js.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLES[name]}</title>
<style>${css}</style>
</head>
<body>
<main id="app"><p class="note">Waiting for the tool result…</p></main>
<script>${script}</script>
</body>
</html>
`;
}

/** Writes `<outDir>/<view>.html` for every view and returns their sizes. */
export async function buildViews(outDir: string): Promise<BuiltView[]> {
  await mkdir(outDir, { recursive: true });
  const css = (
    await esbuild.transform(await readFile(`${here}shared/style.css`, 'utf8'), {
      loader: 'css',
      minify: true,
    })
  ).code;
  const built: BuiltView[] = [];
  for (const name of VIEW_NAMES) {
    const result = await esbuild.build({
      entryPoints: [`${here}${name}.ts`],
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: ['es2022'],
      write: false,
      legalComments: 'none',
      plugins: [englishOnly],
      logLevel: 'silent',
    });
    const html = page(name, css.trim(), result.outputFiles[0]!.text.trim());
    await writeFile(`${outDir}/${name}.html`, html);
    built.push({ name, bytes: Buffer.byteLength(html), gzipped: gzipSync(html).length });
  }
  return built;
}
