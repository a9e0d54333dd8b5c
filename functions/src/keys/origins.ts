import { parse } from 'tldts';

/**
 * Web origin allowlist matching (decisions.md): exact scheme, host and port, case-sensitive.
 * An entry `https://*.example.com` matches exactly one extra label (`https://a.example.com`),
 * never a nested one (`https://a.b.example.com`) and never the apex.
 */
export function originAllowed(origin: string, allowlist: readonly string[]): boolean {
  return allowlist.some((entry) => originMatches(origin, entry));
}

function originMatches(origin: string, entry: string): boolean {
  const wildcard = /^([a-z][a-z0-9+.-]*):\/\/\*\.(.+)$/.exec(entry);
  if (!wildcard) return origin === entry;
  const [, scheme, suffix] = wildcard;
  const prefix = `${scheme}://`;
  if (!origin.startsWith(prefix)) return false;
  const rest = origin.slice(prefix.length);
  const dot = rest.indexOf('.');
  if (dot <= 0) return false;
  const label = rest.slice(0, dot);
  return /^[A-Za-z0-9-]+$/.test(label) && rest.slice(dot + 1) === suffix;
}

/** A well-formed web origin (`scheme://host[:port]`, nothing else), or null. */
export function normaliseOrigin(value: string | undefined): string | null {
  if (!value || value === 'null') return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.origin !== value) return null;
    return value;
  } catch {
    return null;
  }
}

/**
 * What first-origin learning adds: the observed origin plus its registrable apex (same scheme
 * and port), found with the public suffix list. IPs and single-label hosts learn only themselves.
 */
export function originsToLearn(origin: string): string[] {
  const url = new URL(origin);
  const parsed = parse(url.hostname);
  const learned = [origin];
  if (!parsed.isIp && parsed.domain && parsed.domain !== url.hostname) {
    learned.push(`${url.protocol}//${parsed.domain}${url.port ? `:${url.port}` : ''}`);
  }
  return learned;
}
