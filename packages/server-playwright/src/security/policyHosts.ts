import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One entry of an allow or block list. */
export type HostPattern =
  | { kind: 'host'; text: string; host: string }
  | { kind: 'subdomains'; text: string; suffix: string }
  | { kind: 'range'; text: string; range: [Address, number] };

/** Schemes whose URLs name a host the browser connects to. */
const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

/** Where clouds answer with instance credentials; never reachable, whatever the policy says. */
const METADATA_NAMES = ['metadata.google.internal', 'metadata.goog'];
const METADATA_RANGES = ['169.254.0.0/16', '100.100.100.200/32', 'fd00:ec2::254/128', 'fe80::/10'].map((cidr) => ipaddr.parseCIDR(cidr));
/** Addresses that are not a destination: connecting to 0.0.0.0 or :: reaches this machine. */
const UNSPECIFIED_RANGES = ['0.0.0.0/8', '::/128'].map((cidr) => ipaddr.parseCIDR(cidr));
/** IPv6 prefix that carries an IPv4 address through a NAT64 gateway (RFC 6052). */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * A host as the policy compares it: lower case, no trailing dot, IDN in punycode, IPv4 in dotted
 * decimal whatever form it was written in, IPv6 compressed and unbracketed, IPv4-mapped IPv6 as
 * IPv4. Throws on what is not a host.
 */
export function normalizeHost(raw: string): string {
  const bare = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (isIP(bare) === 6) return ipaddr.process(bare).toString();
  if (/[\s:@/?#\\]/.test(bare)) throw new Error(`not a host: ${raw}`);
  const { hostname } = new URL(`http://${bare}/`);
  const host = hostname.replace(/\.+$/, '');
  const inner = host.startsWith('[') ? host.slice(1, -1) : host;
  return isIP(inner) ? ipaddr.process(inner).toString() : host;
}

/** The normalised host of a URL the browser would connect to, or null (not a URL, or data:, blob:, about:…). */
export function hostOfUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!NETWORK_SCHEMES.has(parsed.protocol) || !parsed.hostname) return null;
  try {
    return normalizeHost(parsed.hostname);
  } catch {
    return null;
  }
}

/**
 * The addresses a host is known to have without asking DNS: its own, for an IP literal, and
 * loopback for `localhost` and `*.localhost` (RFC 6761 reserves them), IPv4 first.
 */
export function knownAddresses(host: string): string[] | null {
  if (isIP(host)) return [host];
  return host === 'localhost' || host.endsWith('.localhost') ? ['127.0.0.1', '::1'] : null;
}

/** Parses `example.com`, `*.example.com`, an IP address or a CIDR range; throws naming the pattern. */
export function parseHostPattern(text: string): HostPattern {
  const pattern = text.trim();
  const invalid = (why: string) => new Error(`Invalid domain pattern "${text}": ${why}.`);
  if (pattern.includes('/')) {
    const [base = '', bits = ''] = pattern.split('/');
    if (!/^\d{1,3}$/.test(bits)) throw invalid('a CIDR range is an address, "/" and a prefix length');
    let address: Address;
    try {
      address = ipaddr.parse(normalizeHost(base));
    } catch {
      throw invalid('a CIDR range starts with an IP address');
    }
    const prefix = Number(bits);
    if (prefix > (address.kind() === 'ipv4' ? 32 : 128)) throw invalid('the prefix length is too long');
    return { kind: 'range', text: `${address.toString()}/${prefix}`, range: [address, prefix] };
  }
  const wildcard = pattern.startsWith('*.');
  let host: string;
  try {
    host = normalizeHost(wildcard ? pattern.slice(2) : pattern);
  } catch {
    throw invalid('not a host name, "*." and a host name, an IP address or a CIDR range');
  }
  if (!host || host.includes('*')) throw invalid('"*" may only start a pattern, as in "*.example.com"');
  if (isIP(host)) {
    if (wildcard) throw invalid('"*." goes before a host name, not an IP address');
    const address = ipaddr.parse(host);
    return { kind: 'range', text: host, range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  return wildcard ? { kind: 'subdomains', text: `*.${host}`, suffix: `.${host}` } : { kind: 'host', text: host, host };
}

/**
 * Whether a pattern covers a host: names by name, IP and CIDR patterns by address (the host's
 * own for a literal, else the address it resolved to). `address` null: not known yet.
 */
export function patternMatches(pattern: HostPattern, host: string, address: string | null): boolean {
  switch (pattern.kind) {
    case 'host':
      return host === pattern.host;
    case 'subdomains':
      return host.endsWith(pattern.suffix);
    case 'range':
      return address !== null && inRange(address, pattern.range);
  }
}

/** Why a host is refused whatever the policy (metadata services, unspecified addresses), or null. */
export function defaultRefusal(host: string, address: string | null): string | null {
  if (METADATA_NAMES.some((name) => host === name || host.endsWith(`.${name}`))) return `${host} is a cloud metadata service`;
  if (address === null) return null;
  const subject = host === address ? address : `${host} resolves to ${address}, which`;
  if (METADATA_RANGES.some((range) => inRange(address, range))) return `${subject} is a cloud metadata or link-local address`;
  if (UNSPECIFIED_RANGES.some((range) => inRange(address, range))) return `${subject} is an unspecified address (it would reach this machine)`;
  return null;
}

/** Whether `address` (any textual form) lies in `range`; an IPv4 address behind NAT64 counts as itself. */
function inRange(address: string, range: [Address, number]): boolean {
  let parsed: Address;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && range[0].kind() === 'ipv4' && parsed.match(NAT64)) {
    parsed = ipaddr.fromByteArray(parsed.toByteArray().slice(12));
  }
  const [base, bits] = range;
  if (parsed.kind() === 'ipv4' && base.kind() === 'ipv4') return (parsed as ipaddr.IPv4).match(base as ipaddr.IPv4, bits);
  if (parsed.kind() === 'ipv6' && base.kind() === 'ipv6') return (parsed as ipaddr.IPv6).match(base as ipaddr.IPv6, bits);
  return false;
}
