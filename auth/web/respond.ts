import type { ServerResponse } from 'node:http';

// No scripts at all; styles only inline; never framed (the consent page must not be clickjacked).
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** Sends a server-rendered page: never cached, since every page carries a CSRF token or a secret. */
export function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.end(body);
}
