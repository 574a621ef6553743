import { expect } from 'chai';
import { mcpTools } from '../mcp/server.ts';
import type { Route } from '../rest/adapter.ts';
import { routes } from '../rest/routes.ts';
import type { RunningServer } from '../server/http.ts';
import type { ToolContext } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { ToolError } from '../tools/errors.ts';
import { checkPermission } from '../tools/run.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import type { FixtureUser } from './helpers/fixture.ts';
import { api, EVERY_TOOLSET, startTestServer } from './helpers/server.ts';
import {
  baseInput,
  buildWorld,
  fitField,
  markers,
  mcpCall,
  REFERENCE_FIELDS,
  type RoleName,
  restoreOwn,
  restRequest,
  type Side,
  unknownSide,
  type World,
} from './helpers/world.ts';

// The isolation matrix: every route of rest/routes.ts and every MCP tool, called by every role of firm A
// with every object of firm B (and, for the user restricted to Acme, with every object of Gamma) in
// every input field that refers to an object. The oracle: the answer for an object the caller cannot
// see is exactly the answer for an id that exists nowhere (status, code, fields, body), and no response
// ever contains an id or a name the caller cannot see.

const ROLES: RoleName[] = ['admin', 'editor', 'viewer', 'restricted', 'noDocuments', 'capTable'];

/** One call and what came back, with the probe's text replaced so answers can be compared. */
interface Answer {
  status: number;
  summary: string;
  normalized: unknown;
  text: string;
}

function replaceAll(text: string, token: string): string {
  const forms = new Set([
    token,
    encodeURIComponent(token),
    new URLSearchParams({ x: token }).toString().slice(2),
  ]);
  let out = text;
  for (const form of forms) out = out.split(form).join('<PROBE>');
  return out;
}

function normalize(text: string, token: string | undefined): unknown {
  const replaced = token ? replaceAll(text, token) : text;
  try {
    const body = JSON.parse(replaced) as Record<string, unknown>;
    if (body && typeof body === 'object' && !Array.isArray(body)) delete body.request_id;
    return body;
  } catch {
    return replaced;
  }
}

function lacksPermission(tool: AnyTool, user: FixtureUser): boolean {
  try {
    checkPermission(tool, { principal: { user: user.user } } as unknown as ToolContext);
    return false;
  } catch (err) {
    if (err instanceof ToolError) return true;
    throw err;
  }
}

/** The way a tool is reached: a REST route with a client-credentials token, or MCP with a personal token. */
interface Endpoint {
  label: string;
  tool: AnyTool;
  /** Fields the REST route needs one of, beyond the tool's own required fields. */
  oneOf?: readonly string[];
  call(base: string, role: FixtureUser, input: Record<string, unknown>, token?: string): Promise<Answer>;
}

function restEndpoint(route: Route): Endpoint {
  return {
    label: `${route.method} ${route.path}`,
    tool: route.tool as AnyTool,
    oneOf: route.requireOneOf,
    async call(base, role, input, token) {
      const req = restRequest(route, input);
      const res = await api(base, req.path, { token: role.rest, method: req.method, body: req.body });
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      const code = typeof res.body === 'object' && res.body ? res.body.code : undefined;
      const fields = (res.body?.errors ?? []).map((e: { field: string }) => e.field).join(',');
      return {
        status: res.status,
        summary: `${res.status}${code ? ` ${code}` : ''}${fields ? ` [${fields}]` : ''}`,
        normalized: normalize(text, token),
        text,
      };
    },
  };
}

function mcpEndpoint(tool: AnyTool): Endpoint {
  return {
    label: `MCP ${tool.name}`,
    tool,
    async call(base, role, input, token) {
      const res = await mcpCall(base, role.pat, tool.name, input);
      const result = res.body?.result;
      const status = res.status !== 200 ? res.status : res.body?.error ? 400 : result?.isError ? 422 : 200;
      const message = result?.isError ? (result.content?.[0]?.text ?? '') : '';
      const kind = /permission|may not|needs the|does not have access/i.test(message)
        ? 'permission'
        : /no \w[\w ]* (with|named)|not found|unknown|cannot see|that you can access/i.test(message)
          ? 'not found'
          : 'invalid';
      return {
        status,
        summary: res.body?.error
          ? `error ${res.body.error.code}`
          : result?.isError
            ? `isError (${kind})`
            : 'ok',
        normalized: normalize(res.text, token),
        text: res.text,
      };
    },
  };
}

const endpoints: Endpoint[] = [
  ...routes.map(restEndpoint),
  ...mcpTools({ writeTools: true }).map(mcpEndpoint),
];

for (const dialect of dialects) {
  describe(`isolation between firms and companies, every route and tool × every role × every object kind (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let w: World;
    let nowhere: Side;
    let server: RunningServer;
    let requests = 0;
    /** endpoint + field (kind) → role → answer to the probe: the decisions table in the report. */
    const table = new Map<string, Map<string, string>>();

    const record = (key: string, role: string, summary: string) => {
      const row = table.get(key) ?? new Map<string, string>();
      row.set(role, summary);
      table.set(key, row);
    };

    /** What each role must never see: all of firm B; for the restricted user also Gamma's company data. */
    const invisible = (role: RoleName) => [
      ...markers(w.foreign, 'firm'),
      ...(role === 'restricted' ? markers(w.hidden, 'company') : []),
    ];

    function expectNoLeak(answer: Answer, role: RoleName, token: string | undefined, what: string) {
      const text = token ? replaceAll(answer.text, token) : answer.text;
      for (const marker of invisible(role)) {
        expect(
          text.includes(marker),
          `${what}: the answer shows ${marker} to ${role}: ${text.slice(0, 400)}`,
        ).to.equal(false);
      }
    }

    /** Firm B's data, as a fingerprint: nothing a firm A caller does may change it. */
    async function firmBState(): Promise<string> {
      const rows = await Promise.all([
        t.db('metric_data').where({ firm_id: w.foreign.firmId }).orderBy('id'),
        t.db('metric_comments').whereIn('datum_id', [w.foreign.datum, w.hidden.datum]).orderBy('id'),
        t.db('financings').whereIn('company_id', [w.foreign.company, w.hidden.company]).orderBy('id'),
        t.db('metric_data').where({ id: w.hidden.datum }),
        t.db('alert_rules').where({ firm_id: w.foreign.firmId }).orderBy('id'),
        t.db('alerts').where({ firm_id: w.foreign.firmId }).orderBy('id'),
        t.db('information_requests').where({ firm_id: w.foreign.firmId }).orderBy('id'),
        t.db('information_reports').where({ firm_id: w.foreign.firmId }).orderBy('id'),
        t.db('company_contacts').where({ firm_id: w.foreign.firmId }).orderBy('id'),
        t.db('information_report_links').where({ firm_id: w.foreign.firmId }).orderBy('id'),
      ]);
      return JSON.stringify(rows);
    }

    before(async () => {
      t = await dialect.open();
      w = await buildWorld(t.db);
      nowhere = unknownSide(w.foreign);
      server = await startTestServer(t.db, {
        env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET, RATE_LIMIT_PER_MINUTE: '1000000' },
      });
    });
    after(async () => {
      const roles = ROLES.join(' | ');
      const lines = [...table].map(
        ([key, row]) => `${key}: ${ROLES.map((r) => row.get(r) ?? '-').join(' | ')}`,
      );
      // The table of answers (the decision per route and role) is long: printed on request.
      const verbose = Boolean(process.env.ISOLATION_TABLE);
      console.log(
        `      isolation (${dialect.name}): ${requests} requests over ${endpoints.length} routes and tools × ` +
          `${ROLES.length} roles; ${verbose ? `answers per role (${roles}):` : 'ISOLATION_TABLE=1 prints the answers'}`,
      );
      if (verbose) for (const line of lines) console.log(`        ${line}`);
      await server?.close();
      await t?.drop();
    });

    for (const endpoint of endpoints) {
      const { tool } = endpoint;
      const shape = tool.input.shape as Record<string, unknown>;
      // A write's `name` or `email` is what it gives (a contact's address), not a reference to anything.
      const probed = Object.keys(shape).filter(
        (field) => REFERENCE_FIELDS[field] && !(tool.write && (field === 'name' || field === 'email')),
      );
      it(`${endpoint.label}: another firm's or an inaccessible company's ${probed.length ? probed.join(', ') : 'data'} answers like an unknown id and never shows up`, async () => {
        const before = await firmBState();
        for (const roleName of ROLES) {
          const role = w.roles[roleName];
          const base = baseInput(tool, w.own, endpoint.oneOf);
          const denied = lacksPermission(tool, role);

          // The caller's own objects: a success (or 403 without the permission) that shows nothing hidden.
          const plain = await endpoint.call(server.url, role, base);
          requests += 1;
          // A delete or change of the caller's own objects is undone, so every call meets the same world.
          await restoreOwn(t.db, w);
          expectNoLeak(plain, roleName, undefined, `${endpoint.label} as ${roleName}`);
          if (denied)
            expect(plain.summary, `${endpoint.label} as ${roleName}`).to.match(/^403|isError \(permission\)/);
          else
            expect(
              plain.status,
              `${endpoint.label} as ${roleName}: ${plain.text.slice(0, 300)}`,
            ).to.be.within(200, 299);
          record(`${endpoint.label} (own objects)`, roleName, plain.summary);

          for (const field of probed) {
            for (const ref of REFERENCE_FIELDS[field]!) {
              const sides: [string, Side][] = [['firm B', w.foreign]];
              if (roleName === 'restricted' && ref.level === 'company') sides.push(['Gamma', w.hidden]);
              for (const [sideName, side] of sides) {
                const probe = (s: Side) => {
                  const input: Record<string, unknown> = {
                    ...base,
                    [field]: fitField(shape[field], ref.value(s, w.own)),
                  };
                  if (field === 'company_slug') delete input.company_id;
                  return input;
                };
                const what = `${endpoint.label} as ${roleName} with ${sideName}'s ${ref.kind} in ${field}`;
                const hidden = await endpoint.call(server.url, role, probe(side), ref.token(side));
                const unknown = await endpoint.call(server.url, role, probe(nowhere), ref.token(nowhere));
                requests += 2;
                expectNoLeak(hidden, roleName, ref.token(side), what);
                expect(hidden.status, `${what}: ${hidden.text.slice(0, 300)}`).to.be.oneOf([
                  200, 201, 400, 403, 404, 422,
                ]);
                expect(hidden.normalized, `${what} differs from an unknown id`).to.deep.equal(
                  unknown.normalized,
                );
                record(`${endpoint.label} ${field} (${ref.kind})`, roleName, hidden.summary);
              }
            }
          }
        }
        expect(await firmBState(), `${endpoint.label} changed another firm's data`).to.equal(before);
      });
    }

    it('an invisible document cannot be downloaded: 404 exactly like an unknown one', async () => {
      for (const roleName of ROLES) {
        const role = w.roles[roleName];
        const sides: Side[] = [w.foreign, ...(roleName === 'restricted' ? [w.hidden] : [])];
        const unknown = await api(server.url, `/v1/documents/${nowhere.document}/download/`, {
          token: role.rest,
        });
        for (const side of sides) {
          const res = await api(server.url, `/v1/documents/${side.document}/download/`, { token: role.rest });
          requests += 2;
          expect(res.status, `${roleName} downloading ${side.documentName}`).to.equal(unknown.status);
          expect(res.status).to.be.oneOf([403, 404]);
          expect(res.body.code).to.equal(unknown.body.code);
          expect(JSON.stringify(res.body)).not.to.include(side.documentName);
        }
      }
    });
  });
}
