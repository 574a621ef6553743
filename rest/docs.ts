import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { routes } from './routes.ts';

const assets = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portfolio Data Service — API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const init = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  persistAuthorization: false,
});
`;

/** `/openapi.json` and the interactive reference at `/docs`, with every asset served from here. */
export function docsRouter(publicUrl: () => string): Router {
  const router = express.Router();
  let cached: { url: string; body: string } | undefined;
  router.get('/openapi.json', async (_req, res) => {
    const url = publicUrl();
    if (cached?.url !== url) {
      // The generator (zod-openapi) is loaded by the first request for the document, not at start-up.
      const { openApiDocument } = await import('./openapi.ts');
      cached = { url, body: JSON.stringify(openApiDocument(routes, url)) };
    }
    res.type('application/json').send(cached.body);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(init);
  });
  router.use('/docs/assets', express.static(assets, { index: false, maxAge: '1d' }));
  return router;
}
