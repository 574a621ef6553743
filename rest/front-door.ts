import { readFileSync } from 'node:fs';
import express, { type Router } from 'express';

// From rest/ in the sources, from dist/rest/ when compiled.
const connectingGuide = readFileSync(
  new URL(
    import.meta.url.endsWith('.ts') ? '../docs/connecting.md' : '../../docs/connecting.md',
    import.meta.url,
  ),
  'utf8',
);

/** The entry points, as paths below PUBLIC_URL; the page and the JSON index both list these. */
const entryPoints = {
  api_reference: { path: '/docs', label: 'API reference (interactive)' },
  openapi: { path: '/openapi.json', label: 'OpenAPI document' },
  rest_api: { path: '/v1/', label: 'REST API v1 (bearer token)' },
  beta_api: { path: '/beta/investment/', label: 'Beta investment API (bearer token)' },
  mcp: { path: '/mcp', label: 'MCP server for AI clients (Streamable HTTP)' },
  connecting: { path: '/docs/connecting', label: 'Connecting an AI client' },
  sign_in: { path: '/login', label: 'Sign in (account, connections, access tokens)' },
  token: { path: '/o/token/', label: 'OAuth token endpoint' },
  health: { path: '/healthz', label: 'Liveness' },
  ready: { path: '/readyz', label: 'Readiness (database reachable)' },
} as const;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(publicUrl: string): string {
  const items = Object.values(entryPoints)
    .map(
      (e) =>
        `<li><a href="${escapeHtml(e.path)}">${escapeHtml(e.label)}</a> <code>${escapeHtml(e.path)}</code></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portfolio Data Service</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}code{font-size:.9em}</style>
</head>
<body>
<h1>Portfolio Data Service</h1>
<p>A self-hosted service for a firm's portfolio data: companies, metrics, cap tables, documents and
information requests, served as a REST API and as an MCP server that AI clients connect to with the
login of a firm user, who then sees exactly what that user may see.</p>
<p>To connect an AI client, give it the MCP address <code>${escapeHtml(publicUrl)}/mcp</code>; it opens the
sign-in page in your browser. <a href="/docs/connecting">How to connect Claude, ChatGPT and others</a>.</p>
<h2>Entry points</h2>
<ul>
${items}
</ul>
</body>
</html>
`;
}

/** `GET /`: a page for a person, a JSON index of the entry points for a client; and the connecting guide. */
export function frontDoorRouter(publicUrl: () => string): Router {
  const router = express.Router();
  router.get('/', (req, res) => {
    // A browser asks for text/html first; curl and API clients (*/*, JSON or anything else) get the index.
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') {
      res.type('html').send(page(publicUrl()));
      return;
    }
    const base = publicUrl();
    res.json({
      service: 'portfolio-data-service',
      links: Object.fromEntries(Object.entries(entryPoints).map(([k, e]) => [k, `${base}${e.path}`])),
    });
  });
  router.get('/docs/connecting', (_req, res) => {
    res.type('text/plain; charset=utf-8').send(connectingGuide);
  });
  return router;
}
