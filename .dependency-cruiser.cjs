// The layers of the house, held by `test/layers.test.ts`. Imports point one way:
// server/cli → rest, mcp, auth → tools → analytics, services (the domain) → mail, parsing, db → core.
/** Every top-level folder and the other top-level folders it may import from. */
const allowed = {
  core: [],
  db: ['core'],
  mail: ['core', 'db'],
  parsing: ['core', 'db'],
  services: ['core', 'db', 'mail', 'parsing'],
  analytics: ['core', 'db', 'services'],
  webhooks: ['core', 'db', 'services'],
  alerts: ['core', 'db', 'services', 'analytics'],
  tools: ['core', 'db', 'services', 'analytics', 'alerts', 'webhooks'],
  mcp: ['core', 'tools'],
  rest: ['core', 'db', 'tools'],
  // The web pages (sign-in, the founder page) sit beside rest/ and share its upload handling.
  auth: ['core', 'db', 'services', 'tools', 'webhooks', 'rest'],
  // The MCP Apps views run in the host's browser and reach the service only through the host.
  views: [],
  server: [
    'core',
    'db',
    'mail',
    'parsing',
    'services',
    'analytics',
    'alerts',
    'webhooks',
    'tools',
    'mcp',
    'rest',
    'auth',
  ],
  cli: ['core', 'db', 'services', 'tools', 'mcp', 'server', 'auth'],
  scripts: ['core', 'dist', 'mcp', 'rest', 'tools', 'views', 'test'],
  bench: [
    'core',
    'db',
    'mail',
    'parsing',
    'services',
    'analytics',
    'tools',
    'mcp',
    'rest',
    'auth',
    'server',
    'test',
  ],
  test: ['*'],
  docs: [],
};
const folders = Object.keys(allowed);
const product = folders.filter((f) => !['test', 'bench', 'scripts', 'docs'].includes(f));

const matrix = folders
  .filter((from) => !allowed[from].includes('*'))
  .map((from) => ({
    name: `${from}-imports`,
    comment: `${from}/ may import only from ${allowed[from].join(', ') || 'itself'}`,
    severity: 'error',
    from: { path: `^${from}/` },
    to: {
      path: `^(${[...folders, 'dist'].filter((f) => f !== from && !allowed[from].includes(f)).join('|')})/`,
    },
  }));

module.exports = {
  forbidden: [
    ...matrix,
    {
      name: 'no-circular',
      comment: 'No module of the product reaches itself through its imports.',
      severity: 'error',
      from: { path: `^(${product.join('|')})/` },
      to: { circular: true },
    },
    {
      name: 'tools-no-repository-writes',
      comment:
        'Tools and the figures write through services/ only: no import of a repository write module, the ' +
        'change log, the full repositories (index) or the way back to them from the read-only ones (writable).',
      severity: 'error',
      from: { path: '^(tools|analytics)/' },
      to: { path: '^db/repos/([^/]*-writes|change-log|writable|index)\\.ts$' },
    },
    {
      name: 'domain-no-protocols',
      comment: 'The tools and the domain below them know neither HTTP nor MCP: no express, no MCP SDK.',
      severity: 'error',
      from: { path: '^(tools|analytics|services|alerts|webhooks|mail|parsing|db|core)/' },
      to: { path: '(^|/node_modules/)(@modelcontextprotocol/sdk|express)(/|$)' },
    },
    {
      name: 'relative-imports-resolve',
      severity: 'error',
      from: { path: `^(${product.join('|')})/` },
      to: { couldNotResolve: true, path: '^\\.' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
  },
};
