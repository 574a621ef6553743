import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { type DemoMark, remainingDemoData } from '../../db/demo.ts';
import type { Repos } from '../../db/repos/index.ts';
import { DEMO, isDatabaseEmpty, seedDemo } from '../../db/seeds/demo.ts';
import { type CommandContext, defineCommand } from '../command.ts';
import { addDemoCollection, demoFounderLink } from '../demo-collection.ts';
import { CliError } from '../errors.ts';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** 127.0.0.0/8, ::1 (and IPv4-mapped 127.x) and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  if (isIPv4(h)) return loopback.check(h, 'ipv4');
  if (isIPv6(h)) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)?.[1];
    return mapped ? loopback.check(mapped, 'ipv4') : loopback.check(h, 'ipv6');
  }
  return false;
}

/** The database URL without a password, for the banner. */
function describeDatabase(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres';
  }
}

/** Where mail goes, for the banner: the SMTP server without its credentials, or the outbox. */
function describeMail(smtpUrl: string | undefined): string {
  if (!smtpUrl) return 'held in the outbox (SMTP_URL is not set): read it with "portfolio outbox"';
  const u = new URL(smtpUrl);
  return `${u.protocol}//${u.host}`;
}

async function demoCredentials(repos: Repos): Promise<{ login: boolean; client: boolean }> {
  const user = await repos.users.getByEmail(DEMO.email);
  const app = await repos.applications.findByClientId(DEMO.clientId);
  return { login: Boolean(user), client: Boolean(app) };
}

/** The refusal naming every demo credential left and the command that removes them. */
export function demoRefusal(host: string, left: DemoMark[]): string {
  const names = left.map((m) => `${m.kind} ${m.label}`);
  const shown = names.length > 10 ? [...names.slice(0, 10), `${names.length - 10} more`] : names;
  return (
    `refusing to start: HOST ${host} is not a loopback address and demo data with credentials written ` +
    `in the source is present (${shown.join(', ')}); remove it with "portfolio demo remove", or set ` +
    'ALLOW_DEMO_CREDENTIALS=1 to serve it anyway'
  );
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      // A second signal gets the default action: a forced stop.
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** What the operator is told once the server listens. */
interface Started {
  /** PUBLIC_URL when set, else the address bound. */
  base: string;
  listening: string;
  seeded: boolean;
  notes: string[];
  demo: { login: boolean; client: boolean };
  founderLink: string | undefined;
}

/**
 * Seeds the demo data into an empty database when the host allows it, and refuses to serve demo
 * credentials on a host others can reach; what was done, and the demo credentials present.
 */
async function prepareDatabase(ctx: CommandContext) {
  const { config, db, repos } = ctx;
  const demoAllowed = isLoopback(config.host) || config.allowDemoCredentials;
  const notes: string[] = [];
  let seeded = false;
  if (await isDatabaseEmpty(db)) {
    if (demoAllowed) {
      await seedDemo(db);
      seeded = true;
      notes.push('The database was empty: loaded the demo data.');
    } else {
      notes.push(
        `The database is empty and HOST ${config.host} is not a loopback address, so no demo data was ` +
          'loaded: create a firm and users with "portfolio firms create" and "portfolio users create".',
      );
    }
  }
  const demo = await demoCredentials(repos);
  if (!demoAllowed) {
    const left = await remainingDemoData(db);
    if (left.length > 0) throw new CliError(demoRefusal(config.host, left));
  }
  return { seeded, notes, demo };
}

/** The banner (or, with --json, its JSON) naming the addresses, the database, mail and the demo credentials. */
function announce(ctx: CommandContext, s: Started): void {
  const { config, io } = ctx;
  const { base, demo, founderLink } = s;
  const urls = {
    url: base,
    rest_url: `${base}/v1/`,
    beta_url: `${base}/beta/investment/`,
    mcp_url: `${base}/mcp`,
    docs_url: `${base}/docs`,
    health_url: `${base}/healthz`,
  };
  const tryIt =
    `TOKEN=$(curl -s -u ${DEMO.clientId}:${DEMO.clientSecret} -d grant_type=client_credentials ${base}/o/token/ ` +
    `| sed -E 's/.*"access_token":"([^"]+)".*/\\1/') && curl -s -H "Authorization: Bearer $TOKEN" ${base}/v1/companies/`;

  if (ctx.json) {
    io.out(
      `${JSON.stringify({
        ...urls,
        database: describeDatabase(config.databaseUrl),
        seeded: s.seeded,
        demo:
          demo.login || demo.client
            ? {
                email: demo.login ? DEMO.email : null,
                password: demo.login ? DEMO.password : null,
                client_id: demo.client ? DEMO.clientId : null,
                client_secret: demo.client ? DEMO.clientSecret : null,
                curl: demo.client ? tryIt : null,
                founder_link: founderLink ?? null,
              }
            : null,
      })}\n`,
    );
    return;
  }
  const lines = [
    `Portfolio data service listening on ${s.listening}`,
    `  REST API   ${urls.rest_url}`,
    `  Beta API   ${urls.beta_url}`,
    `  MCP        ${urls.mcp_url}`,
    `  Docs       ${urls.docs_url}`,
    `  Health     ${urls.health_url}`,
    `  Database   ${describeDatabase(config.databaseUrl)}`,
    `  Mail       ${describeMail(config.smtpUrl)}`,
    ...s.notes.map((n) => `  ${n}`),
  ];
  if (demo.login || demo.client) {
    lines.push('', `Demo data (firm "${DEMO.firmSlug}"; for local use only):`);
    if (demo.login) lines.push(`  Login         ${DEMO.email} / ${DEMO.password}`);
    if (founderLink)
      lines.push(
        `  Founder link  ${founderLink}`,
        '    (a founder answering the open request; its mail is in the outbox)',
      );
    if (demo.client) {
      lines.push(
        `  OAuth client  ${DEMO.clientId} / ${DEMO.clientSecret}`,
        '  Get a token and list the companies:',
        `    ${tryIt}`,
      );
    }
  }
  lines.push('', 'Stop with Ctrl-C (or SIGTERM).');
  io.out(`${lines.join('\n')}\n`);
}

export const serve = defineCommand({
  name: 'serve',
  summary: 'serve REST, beta and MCP (seeds the demo data into an empty database on a loopback host)',
  options: {},
  async run(ctx) {
    const { config, db, repos, io } = ctx;
    const { seeded, notes, demo } = await prepareDatabase(ctx);
    const signal = waitForSignal();
    // Loaded here, not at the top: the server's dependencies would slow every other command down.
    const { startServer } = await import('../../server/http.ts');
    const running = await startServer(config, { db });
    // PUBLIC_URL when the operator set one; otherwise the address actually bound (PORT=0 picks one).
    const base = io.env.PUBLIC_URL ? config.publicUrl : running.url;
    const deps = { repos, clock: ctx.clock };
    // Made once the address is known, so that the mailed links point at it.
    if (seeded)
      await addDemoCollection({
        ...deps,
        publicUrl: base,
        founderLinkDaysAfterDue: config.founderLinkDaysAfterDue,
      });
    const founderLink = demo.login ? await demoFounderLink(deps, base) : undefined;
    announce(ctx, { base, listening: running.url, seeded, notes, demo, founderLink });
    await signal;
    await running.close();
  },
});
