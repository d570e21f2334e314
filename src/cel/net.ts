/**
 * IP addresses and CIDR ranges for the `ip` variable and the `ip()` / `cidr()` functions. Semantics
 * follow Go's `net/netip`, which backs cel-go's network extension and the Kubernetes CEL IP library:
 * strict parsing (no leading zeros in IPv4, no zones), IPv4-mapped IPv6 addresses are IPv6 but are
 * unmapped for the classification predicates, and a prefix only contains addresses of its family.
 */

/**
 * An IP address (`net.IP` in CEL).
 *
 * @example
 * ```ts
 * const a = parseIp("10.1.2.3");
 * a !== undefined && a.isPrivate; // true
 * ```
 */
export class IPAddress {
  /** @param bytes 4 bytes for IPv4, 16 for IPv6. */
  constructor(readonly bytes: Uint8Array) {}

  /** 4 or 6. */
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  get is4(): boolean {
    return this.bytes.length === 4;
  }
  get is6(): boolean {
    return this.bytes.length === 16;
  }
  get isUnspecified(): boolean {
    return this.bytes.every((b) => b === 0);
  }
  get isLoopback(): boolean {
    const v4 = unmapped(this);
    if (v4) return v4[0] === 127;
    return this.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
  }
  get isMulticast(): boolean {
    const v4 = unmapped(this);
    if (v4) return ((v4[0] ?? 0) & 0xf0) === 0xe0;
    return this.bytes[0] === 0xff;
  }
  get isInterfaceLocalMulticast(): boolean {
    return !unmapped(this) && this.bytes[0] === 0xff && ((this.bytes[1] ?? 0) & 0x0f) === 0x01;
  }
  get isLinkLocalMulticast(): boolean {
    const v4 = unmapped(this);
    if (v4) return v4[0] === 224 && v4[1] === 0 && v4[2] === 0;
    return this.bytes[0] === 0xff && ((this.bytes[1] ?? 0) & 0x0f) === 0x02;
  }
  get isLinkLocalUnicast(): boolean {
    const v4 = unmapped(this);
    if (v4) return v4[0] === 169 && v4[1] === 254;
    return this.bytes[0] === 0xfe && ((this.bytes[1] ?? 0) & 0xc0) === 0x80;
  }
  get isPrivate(): boolean {
    const v4 = unmapped(this);
    if (v4) {
      const [a = 0, b = 0] = v4;
      return a === 10 || (a === 172 && (b & 0xf0) === 16) || (a === 192 && b === 168);
    }
    return ((this.bytes[0] ?? 0) & 0xfe) === 0xfc;
  }
  get isGlobalUnicast(): boolean {
    const v4 = unmapped(this);
    if (v4 && v4.every((b) => b === 255)) return false;
    return !(this.isUnspecified || this.isLoopback || this.isMulticast || this.isLinkLocalUnicast);
  }

  toString(): string {
    return this.is4 ? Array.from(this.bytes).join(".") : formatIpv6(this.bytes);
  }
}

/** The IPv4 bytes of an IPv4 address or an IPv4-mapped IPv6 address. */
function unmapped(ip: IPAddress): Uint8Array | undefined {
  const b = ip.bytes;
  if (b.length === 4) return b;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return undefined;
  return b[10] === 0xff && b[11] === 0xff ? b.subarray(12) : undefined;
}

function formatIpv6(b: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] ?? 0) << 8) | (b[i + 1] ?? 0));
  if (unmapped(new IPAddress(b))) return `::ffff:${Array.from(b.subarray(12)).join(".")}`;
  // RFC 5952: compress the longest run (length ≥ 2, first on ties) of zero groups.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

function parseIpv4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i] ?? "";
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIpv6(s: string): Uint8Array | undefined {
  if (s.includes("%")) return undefined; // zones are not addresses
  let tail4: Uint8Array | undefined;
  let text = s;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tail4 = parseIpv4(text.slice(lastColon + 1));
    if (!tail4) return undefined;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? "");
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if (!head || !rest) return undefined;
  const total = head.length + rest.length;
  if (halves.length === 2 ? total > 7 : total !== 8) return undefined;
  const groups = [...head, ...new Array<number>(8 - total).fill(0), ...rest];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  if (tail4) out.set(tail4, 12);
  return out;
}

/** `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`, the longest text form of an address. */
const MAX_ADDRESS_LENGTH = 45;

/**
 * Parses an IPv4 or IPv6 address, or returns `undefined`.
 *
 * @example
 * ```ts
 * parseIp("::1")?.isLoopback; // true
 * parseIp("010.0.0.1"); // undefined (leading zeros are ambiguous)
 * ```
 */
export function parseIp(s: string): IPAddress | undefined {
  // The longest address written out is 45 characters (an IPv4-mapped IPv6 address): anything longer
  // is no address, told without splitting it (a 1 MB literal took a second to refuse).
  if (s.length > MAX_ADDRESS_LENGTH) return undefined;
  const bytes = s.includes(":") ? parseIpv6(s) : parseIpv4(s);
  return bytes ? new IPAddress(bytes) : undefined;
}

/**
 * One network: an address and a prefix length.
 *
 * @example
 * ```ts
 * parsePrefix("10.0.0.0/8")?.contains(parseIp("10.1.2.3")!); // true
 * ```
 */
export class IPPrefix {
  constructor(
    readonly ip: IPAddress,
    readonly bits: number,
  ) {}

  contains(addr: IPAddress): boolean {
    if (addr.bytes.length !== this.ip.bytes.length) return false;
    return samePrefix(this.ip.bytes, addr.bytes, this.bits);
  }

  containsPrefix(other: IPPrefix): boolean {
    return other.bits >= this.bits && this.contains(other.ip);
  }

  masked(): IPPrefix {
    const out = new Uint8Array(this.ip.bytes);
    for (let i = 0; i < out.length; i++) {
      const keep = Math.max(0, Math.min(8, this.bits - 8 * i));
      out[i] = (out[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
    }
    return new IPPrefix(new IPAddress(out), this.bits);
  }

  toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  let i = 0;
  for (; bits >= 8; bits -= 8, i++) if (a[i] !== b[i]) return false;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return ((a[i] ?? 0) & mask) === ((b[i] ?? 0) & mask);
}

/**
 * Parses `address/bits`, or returns `undefined`.
 *
 * @example
 * ```ts
 * parsePrefix("2001:db8::/32")?.bits; // 32
 * ```
 */
export function parsePrefix(s: string): IPPrefix | undefined {
  if (s.length > MAX_ADDRESS_LENGTH + 4) return undefined;
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const ip = parseIp(s.slice(0, slash));
  const bitsText = s.slice(slash + 1);
  if (!ip || !/^(0|[1-9][0-9]{0,2})$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > ip.bytes.length * 8) return undefined;
  return new IPPrefix(ip, bits);
}

/**
 * A CIDR value (`net.CIDR` in CEL): one network, or several when built with `cidr('a', 'b')` as the
 * service documents; it contains an address when any of its networks does.
 *
 * @example
 * ```ts
 * const c = new CIDR([parsePrefix("10.0.0.0/8")!, parsePrefix("192.168.0.0/16")!]);
 * c.containsIp(parseIp("192.168.1.1")!); // true
 * ```
 */
export class CIDR {
  constructor(readonly prefixes: readonly IPPrefix[]) {}

  containsIp(addr: IPAddress): boolean {
    return this.prefixes.some((p) => p.contains(addr));
  }

  containsCidr(other: CIDR): boolean {
    return other.prefixes.every((o) => this.prefixes.some((p) => p.containsPrefix(o)));
  }

  toString(): string {
    return this.prefixes.map((p) => p.toString()).join(", ");
  }
}
