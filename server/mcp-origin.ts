import type { NextFunction, Request, Response } from 'express';
import { sendProblem } from '../rest/problem.ts';
import type { Config } from './config.ts';

const allowHeaders = 'Authorization, Content-Type, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const exposeHeaders = 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, X-Request-Id';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The origins PUBLIC_URL stands for: a loopback URL is reached as localhost, 127.0.0.1 or [::1] alike. */
export function publicOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return [url.origin];
  const port = url.port ? `:${url.port}` : '';
  return LOOPBACK_HOSTS.map((host) => `${url.protocol}//${host}${port}`);
}

/**
 * Guards /mcp against DNS rebinding and foreign pages: an `Origin`, when sent, must be PUBLIC_URL's
 * origin or one of MCP_ALLOWED_ORIGINS (403 otherwise). Allowed browser origins get CORS headers.
 */
export function mcpOriginGuard(config: Config) {
  const allowed = () => new Set([...publicOrigins(config.publicUrl), ...config.mcpAllowedOrigins]);
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.get('Origin');
    if (origin !== undefined) {
      if (!allowed().has(origin)) {
        sendProblem(res, 403, 'permission_denied', `origin ${origin} may not call this MCP server`);
        return;
      }
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', exposeHeaders);
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', allowHeaders);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
