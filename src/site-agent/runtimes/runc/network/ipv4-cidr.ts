/** IPv4 prefixes for a site's pod network: parsing, membership and the addresses in them. */

export interface Ipv4Cidr {
  /** The network address as an unsigned 32-bit number. */
  readonly network: number;
  readonly prefixLength: number;
}

export class CidrError extends Error {}

/** A dotted IPv4 address as an unsigned 32-bit number, or undefined when it is not one. */
export function parseAddress(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((sum, p) => sum * 256 + Number(p), 0);
}

export function formatAddress(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

const maskOf = (prefixLength: number): number => (prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0);

/**
 * `a.b.c.d/n` with n between 16 and 29 (room for a gateway and pods, small enough to keep
 * allocation cheap) and no host bits set.
 */
export function parseCidr(text: string): Ipv4Cidr {
  const match = /^([0-9.]+)\/([0-9]{1,2})$/.exec(text.trim());
  const address = match === null ? undefined : parseAddress(match[1] as string);
  const prefixLength = match === null ? Number.NaN : Number(match[2]);
  if (address === undefined || !(prefixLength >= 16 && prefixLength <= 29)) throw new CidrError(`${JSON.stringify(text)} is not an IPv4 CIDR between /16 and /29 (e.g. 10.88.0.0/24)`);
  if ((address & ~maskOf(prefixLength)) >>> 0 !== 0) throw new CidrError(`${text} has host bits set; the network is ${formatAddress((address & maskOf(prefixLength)) >>> 0)}/${prefixLength}`);
  return { network: address, prefixLength };
}

/** Whether the dotted address `ip` is inside `cidr`. */
export function cidrContains(cidr: Ipv4Cidr, ip: string): boolean {
  const address = parseAddress(ip);
  return address !== undefined && (address & maskOf(cidr.prefixLength)) >>> 0 === cidr.network;
}

export function formatCidr(cidr: Ipv4Cidr): string {
  return `${formatAddress(cidr.network)}/${cidr.prefixLength}`;
}

const size = (cidr: Ipv4Cidr): number => 2 ** (32 - cidr.prefixLength);

export function cidrsOverlap(a: Ipv4Cidr, b: Ipv4Cidr): boolean {
  return a.network < b.network + size(b) && b.network < a.network + size(a);
}

/** The site's own address on its bridge: the first host address (pods route through it). */
export function gatewayAddress(cidr: Ipv4Cidr): number {
  return cidr.network + 1;
}

/** The addresses pods may take: all but the network, the gateway and the broadcast address, in order. */
export function* podAddresses(cidr: Ipv4Cidr): Generator<number> {
  const last = cidr.network + size(cidr) - 2;
  for (let address = cidr.network + 2; address <= last; address++) yield address;
}

/**
 * The next free pod address after `previous` (round robin, as host-local IPAM does, so a
 * freed address is not reused at once), or undefined when every one is taken.
 */
export function nextFreeAddress(cidr: Ipv4Cidr, taken: ReadonlySet<number>, previous?: number): number | undefined {
  const all = [...podAddresses(cidr)];
  const start = previous === undefined ? 0 : all.indexOf(previous) + 1;
  for (let i = 0; i < all.length; i++) {
    const candidate = all[(start + i) % all.length] as number;
    if (!taken.has(candidate)) return candidate;
  }
  return undefined;
}

/**
 * A default pod CIDR for the n-th site network on a machine: 10.244.n.0/24 (n < 256), the
 * range Kubernetes' flannel default uses, one /24 per site as kubelet's node CIDR.
 */
export function defaultSiteCidr(index: number): Ipv4Cidr {
  if (!Number.isInteger(index) || index < 0 || index > 255) throw new CidrError(`no default pod CIDR for site network ${index}: give the site a --pod-cidr`);
  return { network: ((10 << 24) | (244 << 16) | (index << 8)) >>> 0, prefixLength: 24 };
}
