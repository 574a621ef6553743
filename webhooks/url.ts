import { isIP } from 'node:net';
import { isLoopbackAddress, isPublicAddress } from '../core/public-address.ts';

/** Whether an address may receive webhooks: public, or loopback when private URLs are allowed (development). */
export function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  return isPublicAddress(address) || (allowPrivate && isLoopbackAddress(address));
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || (isIP(host) !== 0 && isLoopbackAddress(host));
}

/**
 * Why a webhook URL is refused, or undefined when it may be stored: https only (http to loopback when
 * private URLs are allowed), no credentials, and an address literal must be public. Host names are
 * checked again at every connection, after DNS.
 */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https URL';
  }
  if (text.length > 2000) return 'must be at most 2000 characters';
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate && isLoopbackHost(host)))
    return 'must be an https URL';
  if (isIP(host) && !isAllowedAddress(host, allowPrivate))
    return `${host} is not a public address (private, loopback, link-local and reserved addresses are refused)`;
  return undefined;
}
