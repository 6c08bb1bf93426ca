/**
 * Keeps webhooks from reaching into our own network (SSRF): webhook URLs are user-supplied and the
 * service POSTs to them. Checked twice (docs/decisions.md §8): when a webhook is saved (every address the
 * name resolves to must be public) and at every delivery, against the address actually connected
 * to, through a connector whose `lookup` refuses private answers. The second check is what
 * makes DNS rebinding useless: a name that resolved to a public address on save but to 127.0.0.1
 * now is refused at connect time, and no other lookup happens between the check and the connect.
 */
import dns from 'node:dns';
import net from 'node:net';
import { buildConnector } from 'undici';
import { DeliveryConnections } from './send.ts';

export type AddressFamily = 4 | 6;
export interface ResolvedAddress {
  address: string;
  family: AddressFamily;
}
/** Resolves a host name to every address (A and AAAA) the system resolver gives; injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family as AddressFamily,
  }));

/** Thrown for a URL or address the policy refuses; the message says why, for the 400 and the attempt log. */
export class ForbiddenTargetError extends Error {
  readonly code = 'EWEBHOOKTARGET';
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenTargetError';
  }
}

// ---- IPv4 ------------------------------------------------------------------------------------

/** Special-purpose IPv4 ranges (IANA registry) that are not globally reachable unicast. */
const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved (6to4 relay) address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a reserved (benchmarking) address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
];

const v4ToInt = (a: string): number => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);

const V4_RANGES = V4_BLOCKED.map(([base, bits, why]) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { net: (v4ToInt(base) & mask) >>> 0, mask, why };
});

/** Why an IPv4 address (as a 32-bit number) is refused, or undefined if it is public. */
function classifyV4Int(n: number): string | undefined {
  for (const r of V4_RANGES) if ((n & r.mask) >>> 0 === r.net) return r.why;
  return undefined;
}

// ---- IPv6 ------------------------------------------------------------------------------------

/** Eight 16-bit groups of an IPv6 address in any textual form (`::`, embedded dotted IPv4, zone). */
function parseV6(text: string): number[] | undefined {
  let s = text.replace(/^\[|\]$/g, '');
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (!net.isIPv6(s)) return undefined;
  // A trailing dotted IPv4 part (::ffff:127.0.0.1) stands for the last two groups.
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = v4ToInt(s.slice(lastColon + 1));
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  const groups = (h: string) => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const head = groups(halves[0]);
  const rest = halves.length > 1 ? groups(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  return [...head, ...new Array<number>(fill).fill(0), ...rest];
}

const embeddedV4 = (g: number[], at: number): number => ((g[at] << 16) | g[at + 1]) >>> 0;
const v4Text = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** Why an IPv6 address is refused, or undefined if it is public. */
function classifyV6(g: number[]): string | undefined {
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  if (zeroUpTo(8)) return 'the unspecified address';
  if (zeroUpTo(7) && g[7] === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d): the connection goes to the IPv4 address, so judge that one.
  if (zeroUpTo(5) && g[5] === 0xffff) {
    const why = classifyV4Int(embeddedV4(g, 6));
    return why && `${why} (IPv4-mapped ${v4Text(embeddedV4(g, 6))})`;
  }
  // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address through a translator.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const why = classifyV4Int(embeddedV4(g, 6));
    return why && `${why} (NAT64 ${v4Text(embeddedV4(g, 6))})`;
  }
  // 6to4 (2002::/16) embeds an IPv4 address in bits 16..47.
  if (g[0] === 0x2002) {
    const why = classifyV4Int(embeddedV4(g, 1));
    return why && `${why} (6to4 ${v4Text(embeddedV4(g, 1))})`;
  }
  // Everything outside global unicast 2000::/3: ::/8 (incl. IPv4-compatible), 100::/64 discard,
  // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast, ...
  if ((g[0] & 0xe000) !== 0x2000) {
    if ((g[0] & 0xfe00) === 0xfc00) return 'a unique-local (private) address';
    if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address';
    if ((g[0] & 0xff00) === 0xff00) return 'a multicast address';
    return 'a reserved address';
  }
  // Inside 2000::/3, the special-purpose blocks that are not globally reachable.
  if (g[0] === 0x2001 && g[1] < 0x0200) return 'a reserved (IETF protocol, Teredo) address'; // 2001::/23
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'a documentation address'; // 2001:db8::/32
  if (g[0] === 0x3fff && (g[1] & 0xf000) === 0) return 'a documentation address'; // 3fff::/20
  return undefined;
}

/**
 * Why an IP address must not be contacted ("a loopback address", ...), or undefined when it is a
 * public unicast address. Accepts IPv4 dotted quads and IPv6 in any form, bracketed or not.
 * Anything that is not an IP address is refused too: callers pass resolved addresses only.
 */
export function classifyAddress(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  if (net.isIPv4(bare)) return classifyV4Int(v4ToInt(bare));
  const groups = parseV6(bare);
  if (!groups || groups.length !== 8 || groups.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffff))
    return 'not an IP address';
  return classifyV6(groups);
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address) === undefined;

// ---- URLs ------------------------------------------------------------------------------------

/** The parsed URL's host as an IP literal (brackets removed), or undefined when it is a name. */
export function ipLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) ? host : undefined;
}

/**
 * Shape checks that need no network: http(s), no credentials, a host, and (for IP literals and
 * well-known local names) the address policy. WHATWG URL parsing has already turned the numeric
 * host spellings (0x7f000001, 2130706433, 017700000001, 127.1, %-escapes) into dotted quads.
 */
export function checkUrlShape(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ForbiddenTargetError('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ForbiddenTargetError('must use http or https');
  if (url.username !== '' || url.password !== '') throw new ForbiddenTargetError('must not contain credentials');
  if (url.hostname === '') throw new ForbiddenTargetError('must name a host');
  if (allowPrivate) return url;
  const literal = ipLiteral(url);
  if (literal !== undefined) {
    const why = classifyAddress(literal);
    if (why) throw new ForbiddenTargetError(`host ${literal} is ${why}`);
  } else {
    // RFC 6761: these names are the local machine whatever DNS says.
    const name = url.hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost') || name === 'localhost.localdomain')
      throw new ForbiddenTargetError(`host ${url.hostname} is the local machine`);
  }
  return url;
}

/**
 * The save-time check: shape, then every address the host resolves to must be public (one private
 * answer is enough to refuse: the connect could pick it).
 */
export async function checkUrlOnSave(raw: string, opts: { allowPrivate: boolean; resolver?: Resolver }): Promise<URL> {
  const url = checkUrlShape(raw, opts.allowPrivate);
  if (opts.allowPrivate || ipLiteral(url) !== undefined) return url;
  let addresses: ResolvedAddress[];
  try {
    addresses = await (opts.resolver ?? systemResolver)(url.hostname);
  } catch (err) {
    throw new ForbiddenTargetError(
      `host ${url.hostname} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (addresses.length === 0) throw new ForbiddenTargetError(`host ${url.hostname} does not resolve`);
  for (const a of addresses) {
    const why = classifyAddress(a.address);
    if (why) throw new ForbiddenTargetError(`host ${url.hostname} resolves to ${a.address}, ${why}`);
  }
  return url;
}

// ---- Connect-time filtering ------------------------------------------------------------------

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net.connect that resolves with `resolver` and refuses the connection when any
 * answer is not public. Node calls it with `all: true` (happy eyeballs) or without; both are served.
 */
export function filteringLookup(resolver: Resolver = systemResolver) {
  return (hostname: string, options: dns.LookupOptions | number | undefined, callback: LookupCallback): void => {
    const opts = typeof options === 'object' && options !== null ? options : { family: options };
    resolver(hostname).then(
      (found) => {
        const wanted = opts.family === 4 || opts.family === 6 ? found.filter((a) => a.family === opts.family) : found;
        if (wanted.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          return callback(err, '');
        }
        for (const a of wanted) {
          const why = classifyAddress(a.address);
          if (why)
            return callback(new ForbiddenTargetError(`refused to connect to ${hostname} (${a.address}): ${why}`), '');
        }
        if (opts.all)
          callback(
            null,
            wanted.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** How long an idle delivery connection is kept for the next delivery to the same host. */
const IDLE_SOCKET_MS = 4_000;

export interface TargetAgents {
  /** The connections for a URL (the setting is read per request). */
  forUrl(url: URL): DeliveryConnections;
  destroy(): void;
}

/**
 * Connections for delivery (send.ts). With `allowPrivate` off, every name is resolved through
 * filteringLookup, which undici's connector hands to net.connect and tls.connect; IP literals
 * never reach `lookup` (Node connects to them directly), so callers check those with
 * checkUrlShape before sending.
 *
 * Keep-alive: a reused connection goes to the address that was checked when it was opened (the
 * check is on the address connected to, not on the name), so reuse cannot reach anything the
 * check refused, and a name that rebinds later is checked again on its next new connection.
 * Connecting afresh per delivery cost a TCP handshake each and capped a backlog's drain
 * (bench/webhook-drain.ts). Filtered and unfiltered connections live in separate pools, so a
 * connection opened while private targets were allowed is never reused once they are not.
 * Idle connections close after a few seconds (sooner if the receiver announces a shorter
 * Keep-Alive timeout). Certificates are verified (tls.connect's default).
 */
export function createTargetAgents(opts: { allowPrivate: () => boolean; resolver?: Resolver }): TargetAgents {
  // No connect time-out of undici's own (timeout 0): send.ts's time-out until headers counts from the call, connecting
  // included, and is the one the attempt log names.
  const filtered = new DeliveryConnections(
    buildConnector({ lookup: filteringLookup(opts.resolver), timeout: 0 }),
    IDLE_SOCKET_MS,
  );
  const open = new DeliveryConnections(buildConnector({ timeout: 0 }), IDLE_SOCKET_MS);
  return {
    forUrl: () => (opts.allowPrivate() ? open : filtered),
    destroy() {
      filtered.destroy();
      open.destroy();
    },
  };
}
