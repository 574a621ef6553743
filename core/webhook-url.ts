import { isIP } from 'node:net';
import { isLoopbackAddress, isPublicAddress, type Resolve, resolveWithDns } from './public-address.ts';
import { uriProblem } from './uri.ts';

const REFUSED = '(private, loopback, link-local and reserved addresses are refused)';

/** Whether an address may receive webhooks: public, or loopback when private URLs are allowed (development). */
export function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  return isPublicAddress(address) || (allowPrivate && isLoopbackAddress(address));
}

/** `localhost` and its subdomains are loopback wherever they are resolved (RFC 6761). */
const isLocalhost = (host: string) => /(^|\.)localhost\.?$/.test(host);

function isLoopbackHost(host: string): boolean {
  return isLocalhost(host) || (isIP(host) !== 0 && isLoopbackAddress(host));
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Why a webhook URL is refused, or undefined when it may be stored: a valid URI by RFC 3986, https
 * only (http to loopback when private URLs are allowed), no credentials, and an address literal must
 * be public. Host names are
 * checked again at every connection, after DNS.
 */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  if (text.length > 2000) return 'must be at most 2000 characters';
  const invalid = uriProblem(text);
  if (invalid) return invalid;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = hostOf(url);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate && isLoopbackHost(host)))
    return 'must be an https URL';
  if (isIP(host) && !isAllowedAddress(host, allowPrivate))
    return `${host} is not a public address ${REFUSED}`;
  if (isLocalhost(host) && !allowPrivate) return `${host} is not a public address ${REFUSED}`;
  return undefined;
}

/**
 * Why a webhook URL is refused when it is registered, or undefined: webhookUrlProblem's checks, then a
 * host name must resolve, and every address it resolves to may receive webhooks (as delivery, which
 * checks them again at every connection, would refuse it otherwise).
 */
export async function webhookUrlRefusal(
  text: string,
  allowPrivate: boolean,
  resolve: Resolve = resolveWithDns,
): Promise<string | undefined> {
  const problem = webhookUrlProblem(text, allowPrivate);
  if (problem) return problem;
  const host = hostOf(new URL(text));
  if (isIP(host)) return undefined;
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return `names ${host}, which does not resolve${code && code !== 'ENOTFOUND' ? ` (${code})` : ''}`;
  }
  if (addresses.length === 0) return `names ${host}, which does not resolve`;
  const bad = addresses.find((a) => !isAllowedAddress(a.address, allowPrivate));
  if (bad) return `names ${host}, which resolves to ${bad.address}, not a public address ${REFUSED}`;
  return undefined;
}
