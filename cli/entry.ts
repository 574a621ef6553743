// What the `portfolio` command runs once cli/portfolio.ts has checked the Node version.

import { enableCompileCache } from 'node:module';

// V8's compiled code of the modules is kept on disk (in the system's temporary directory) between starts.
enableCompileCache?.();

// Tracing starts before the application loads, so that its instrumentations apply; without an
// endpoint it is not even loaded.
const tracing = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  ? (await import('../server/tracing.ts')).startTracing()
  : undefined;
const { main } = await import('./main.ts');
const code = await main(process.argv.slice(2));
// Spans still buffered go out before the process ends.
await tracing?.shutdown().catch(() => {});
// Exit explicitly: a stray handle (a pool timer, a Redis client) must not keep a finished command alive.
process.exit(code);
