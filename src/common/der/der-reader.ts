/** One DER element: its tag and where its bytes are in the buffer it was read from. */
export interface DerNode {
  readonly tag: number;
  /** The whole element (tag, length and content). */
  readonly raw: Buffer;
  /** The content octets only. */
  readonly content: Buffer;
}

/** A DER structure that does not parse; the message says where. */
export class DerError extends Error {
  override readonly name = 'DerError';
}

/** The element that starts at `offset` of `bytes` (definite lengths only, as DER requires). */
export function readNode(bytes: Buffer, offset = 0): DerNode {
  const tag = bytes[offset];
  const first = bytes[offset + 1];
  if (tag === undefined || first === undefined) throw new DerError(`truncated element at byte ${offset}`);
  let length = first;
  let header = 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new DerError(`unsupported length encoding at byte ${offset}`);
    length = 0;
    for (let i = 0; i < count; i++) {
      const byte = bytes[offset + 2 + i];
      if (byte === undefined) throw new DerError(`truncated length at byte ${offset}`);
      length = length * 256 + byte;
    }
    header += count;
  }
  const end = offset + header + length;
  if (end > bytes.length) throw new DerError(`element at byte ${offset} runs past the end (${end} > ${bytes.length})`);
  return { tag, raw: bytes.subarray(offset, end), content: bytes.subarray(offset + header, end) };
}

/** The elements inside a constructed element, in order. */
export function children(node: DerNode): DerNode[] {
  const found: DerNode[] = [];
  for (let offset = 0; offset < node.content.length; ) {
    const child = readNode(node.content, offset);
    found.push(child);
    offset += child.raw.length;
  }
  return found;
}

/** A whole buffer that is exactly one element of `tag`. */
export function readTop(bytes: Buffer, tag: number, what: string): DerNode {
  const node = readNode(bytes);
  if (node.tag !== tag || node.raw.length !== bytes.length) throw new DerError(`${what} is not one DER element of tag 0x${tag.toString(16)}`);
  return node;
}

/** The dotted form of an OBJECT IDENTIFIER element. */
export function readOid(node: DerNode): string {
  if (node.tag !== 0x06 || node.content.length === 0) throw new DerError('expected an OBJECT IDENTIFIER');
  const arcs: bigint[] = [];
  let value = 0n;
  for (const byte of node.content) {
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0n;
    }
  }
  const [first = 0n, ...rest] = arcs;
  const head = first < 80n ? [first / 40n, first % 40n] : [2n, first - 80n];
  return [...head, ...rest].join('.');
}

/** The `index`-th child, of tag `tag` when given; throws naming `what` otherwise. */
export function child(nodes: readonly DerNode[], index: number, what: string, tag?: number): DerNode {
  const node = nodes[index];
  if (node === undefined || (tag !== undefined && node.tag !== tag)) throw new DerError(`${what}: missing or of the wrong type`);
  return node;
}
