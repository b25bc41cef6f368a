/**
 * An IPv4 CIDR as kube's service IP allocator sees it (`ipallocator.NewCIDRRange`): the
 * addresses of the network except its first (network) and last (broadcast) address, numbered
 * from 0 (the network address + 1).
 */
export class Ipv4Range {
  private constructor(
    /** The network address as an unsigned 32-bit number. */
    private readonly network: number,
    readonly prefixLength: number,
  ) {}

  /** Parses `a.b.c.d/n`; the host bits are masked off (`10.96.0.5/16` is 10.96.0.0/16). Throws when not an IPv4 CIDR. */
  static parse(cidr: string): Ipv4Range {
    const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
    const octets = match?.slice(1, 5).map(Number) ?? [];
    const prefixLength = Number(match?.[5] ?? NaN);
    if (octets.length !== 4 || octets.some((o) => o > 255) || !(prefixLength <= 32)) throw new Error(`not an IPv4 CIDR: ${cidr}`);
    const address = octets.reduce((n, o) => n * 256 + o, 0);
    const hostSpan = 2 ** (32 - prefixLength);
    return new Ipv4Range(address - (address % hostSpan), prefixLength);
  }

  /** How many addresses can be handed out (never negative). */
  get size(): number {
    return Math.max(0, 2 ** (32 - this.prefixLength) - 2);
  }

  /** The range as kube prints it in errors: `10.96.0.0/16`. */
  toString(): string {
    return `${formatIpv4(this.network)}/${this.prefixLength}`;
  }

  /** The position of `ip` in the range, or undefined when it is not an allocatable address of it. */
  offsetOf(ip: string): number | undefined {
    const value = parseIpv4Number(ip);
    if (value === undefined) return undefined;
    const offset = value - this.network - 1;
    return offset >= 0 && offset < this.size ? offset : undefined;
  }

  /** The address at `offset` (0 ≤ offset < size). */
  addressAt(offset: number): string {
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.size) throw new RangeError(`offset ${offset} outside ${this.toString()}`);
    return formatIpv4(this.network + 1 + offset);
  }
}

/** An IPv4 address (also written IPv4-mapped, `::ffff:a.b.c.d`) as an unsigned number. */
function parseIpv4Number(ip: string): number | undefined {
  const text = ip.toLowerCase().startsWith('::ffff:') ? ip.slice(7) : ip;
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}
