#!/usr/bin/env node
// The `portfolio` command (compiled to dist/cli/portfolio.js; cli/portfolio.mjs runs it from the
// sources). It checks the Node version before anything else loads: the application needs Node 22+,
// and an older Node would otherwise stop at a SyntaxError while linking it. Keep this file free of
// static imports and of syntax newer than Node 18's.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `portfolio needs Node 22 or later (this is ${process.versions.node}): run it through npm start or ` +
      'npx portfolio, which use the Node 24 installed with the project, or install Node 22+\n',
  );
  process.exit(1);
}
// Tracing instruments express and knex as they load from node_modules, which the packages bundled into
// dist/bundle/ never do: with tracing on, the bundle hands over to the compiled modules in dist/cli/.
const bundled = import.meta.url.endsWith('/dist/bundle/portfolio.js');
if (bundled && process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const compiled = new URL('../cli/entry.js', import.meta.url).href;
  await import(compiled);
} else {
  await import('./entry.ts');
}
