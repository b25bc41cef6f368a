import { comparePathElements, type FieldPath, type PathElement, serializePathElement } from './path-element.js';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths as structured-merge-diff keeps it: at each level, the elements that
 * are themselves members, and the child sets below elements. A path can be a member and
 * have children (a list item that is owned and whose fields are owned). Children are never
 * empty. Sets are built with {@link FieldSet.insert}; the set operations return new sets.
 */
export class FieldSet {
  private readonly members = new Map<string, PathElement>();
  private readonly children = new Map<string, Child>();

  static of(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds a path (the empty path is ignored, as upstream does). */
  insert(path: FieldPath): void {
    if (path.length === 0) return;
    const [head, ...rest] = path as [PathElement, ...PathElement[]];
    if (rest.length === 0) this.members.set(serializePathElement(head), head);
    else this.descend(head).insert(rest);
  }

  private descend(pe: PathElement): FieldSet {
    const id = serializePathElement(pe);
    let child = this.children.get(id);
    if (child === undefined) {
      child = { pe, set: new FieldSet() };
      this.children.set(id, child);
    }
    return child.set;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && [...this.children.values()].every((c) => c.set.isEmpty());
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    const [head, ...rest] = path as [PathElement, ...PathElement[]];
    return rest.length === 0 ? this.hasMember(head) : this.child(head).has(rest);
  }

  /** The paths below `pe`, relative to it (empty when there are none). */
  child(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  union(other: FieldSet): FieldSet {
    return this.combine(other, (a, b) => a || b, (a, b) => (a === undefined ? b : b === undefined ? a : a.union(b)));
  }

  intersection(other: FieldSet): FieldSet {
    return this.combine(other, (a, b) => a && b, (a, b) => (a === undefined || b === undefined ? undefined : a.intersection(b)));
  }

  difference(other: FieldSet): FieldSet {
    return this.combine(other, (a, b) => a && !b, (a, b) => (a === undefined ? undefined : b === undefined ? a : a.difference(b)));
  }

  private combine(
    other: FieldSet,
    keepMember: (inThis: boolean, inOther: boolean) => boolean,
    combineChildren: (a: FieldSet | undefined, b: FieldSet | undefined) => FieldSet | undefined,
  ): FieldSet {
    const out = new FieldSet();
    for (const [id, pe] of new Map([...this.members, ...other.members])) {
      if (keepMember(this.members.has(id), other.members.has(id))) out.members.set(id, pe);
    }
    for (const id of new Set([...this.children.keys(), ...other.children.keys()])) {
      const mine = this.children.get(id);
      const theirs = other.children.get(id);
      const set = combineChildren(mine?.set, theirs?.set);
      const pe = (mine ?? theirs)?.pe;
      if (set !== undefined && pe !== undefined && !set.isEmpty()) out.children.set(id, { pe, set });
    }
    return out;
  }

  /** The members of this level, in path-element order. */
  sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  /** The children of this level, in path-element order. */
  sortedChildren(): Array<{ readonly pe: PathElement; readonly set: FieldSet }> {
    return [...this.children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** Every path, in upstream's iteration order: a level's members first, then each child in order. */
  paths(prefix: FieldPath = []): FieldPath[] {
    const out: FieldPath[] = this.sortedMembers().map((pe) => [...prefix, pe]);
    for (const c of this.sortedChildren()) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }
}
