import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../errors/domain';

/**
 * Where an outbound webhook may go (no server-side request forgery). A URL an operator typed is
 * checked at creation and again at delivery, after each DNS resolution: deployed, only `https`
 * to public addresses; every address a host resolves to must be public (one private answer
 * refuses the whole host, so a resolver cannot mix one in). Locally, with `allowLoopbackHttp`
 * (`TESSERA_WEBHOOKS_ALLOW_LOOPBACK`), a destination that is loopback only may also use `http`.
 */

export type RefusalReason = 'invalid_url' | 'scheme' | 'credentials' | 'blocked_name' | 'blocked_address' | 'unresolvable';

/** A refused destination: a domain refusal (`invalid_argument`) whose `reason` the delivery can act on. */
export class DestinationRefusedError extends DomainError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super('invalid_argument', message);
    this.name = 'DestinationRefusedError';
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** `dns.promises.lookup(host, { all: true })`, injectable for tests. */
export type Lookup = (hostname: string, options: { all: true }) => Promise<ResolvedAddress[]>;

export interface DestinationOptions {
  /** Local development only: allow `http` (and `https`) to a destination that is loopback only. */
  allowLoopbackHttp: boolean;
  lookup?: Lookup;
}

export interface CheckedDestination {
  url: URL;
  /** The addresses checked: a delivery connects to one of these, never resolving again. */
  addresses: string[];
}

const MAX_URL_LENGTH = 2048;

/** Cloud metadata services reached by name (their addresses are refused by range as well). */
const BLOCKED_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Never a webhook destination. IPv4-mapped IPv6 addresses match their IPv4 rules (node's BlockList maps them). */
const REFUSED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (Alibaba's metadata 100.100.100.200 included)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (AWS, GCP, Azure metadata 169.254.169.254 included)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast 255.255.255.255 included
] as const) {
  REFUSED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo (an obfuscated IPv4 inside)
  ['2001:2::', 48], // benchmarking
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local (AWS metadata fd00:ec2::254 included)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  REFUSED.addSubnet(net, prefix, 'ipv6');
}

/** Well-known NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses carry an IPv4 address that decides. */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return v4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]);
  return null;
}

/** Eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or null. */
function expandIpv6(address: string): number[] | null {
  let text = address.split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = text.includes('::') ? [...left, ...new Array(8 - left.length - right.length).fill(0), ...right] : left;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** True when the address is private, loopback, link-local, unique-local, CGNAT, multicast, unspecified, reserved or metadata. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (REFUSED.check(address, 'ipv6')) return true;
  const inner = embeddedIpv4(address);
  return inner !== null && REFUSED.check(inner, 'ipv4');
}

function parseUrl(text: string): URL {
  if (text.length > MAX_URL_LENGTH) throw new DestinationRefusedError('invalid_url', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  try {
    return new URL(text);
  } catch {
    throw new DestinationRefusedError('invalid_url', 'The URL cannot be read; give an absolute https:// URL.');
  }
}

async function resolve(hostname: string, lookup: Lookup): Promise<string[]> {
  try {
    const answers = await lookup(hostname, { all: true });
    if (answers.length > 0) return answers.map((a) => a.address);
  } catch {
    // Reported below, without the resolver's message (it may name internal infrastructure).
  }
  throw new DestinationRefusedError('unresolvable', `The host ${hostname} does not resolve.`);
}

/**
 * Checks a webhook destination and returns the URL with the addresses it resolved to; throws
 * DestinationRefusedError otherwise. IP literals are checked as they are (the WHATWG parser has
 * already normalised forms like `0x7f.1` or `2130706433` to `127.0.0.1`).
 */
export async function checkDestination(text: string, options: DestinationOptions): Promise<CheckedDestination> {
  const url = parseUrl(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefusedError('scheme', 'A webhook URL must use https.');
  if (url.username || url.password) throw new DestinationRefusedError('credentials', 'A webhook URL must not carry credentials (user:password@).');
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === '') throw new DestinationRefusedError('invalid_url', 'The URL has no host.');
  if (BLOCKED_NAMES.has(host)) throw new DestinationRefusedError('blocked_name', `${host} is a cloud metadata service.`);
  const addresses = isIP(host) ? [host] : await resolve(host, options.lookup ?? (dns.lookup as Lookup));
  const loopbackOnly = addresses.every(isLoopbackAddress);
  if (options.allowLoopbackHttp && loopbackOnly) return { url, addresses };
  if (url.protocol !== 'https:') throw new DestinationRefusedError('scheme', 'A webhook URL must use https.');
  // The message names the rule, never the address: an answer must not tell what a name resolves to inside a network.
  if (addresses.some(isRefusedAddress)) throw new DestinationRefusedError('blocked_address', BLOCKED_ADDRESS_RULE);
  return { url, addresses };
}

/** The rule a refused address breaks, as every refusal states it. */
export const BLOCKED_ADDRESS_RULE =
  'A webhook destination must resolve only to public internet addresses: private, loopback, link-local, shared (CGNAT), multicast, reserved, documentation and cloud metadata addresses are refused.';
