import { FieldSet } from './field-set.js';
import { compareObjects, type Comparison, mergeObjects } from './merge-values.js';
import { removeItems } from './remove-items.js';
import { type TypeContext, toFieldSet } from './to-field-set.js';
import type { TypeNode } from './type-schema.js';
import { formatValidationErrors, type ValidationError } from './validation-errors.js';

/** The fields one manager owns, the API version they were set with, and whether it applied them. */
interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Managers by identifier (see `managerIdentifier`). */
export type ManagerSets = Map<string, VersionedSet>;

/** Other managers own fields the apply would change; by manager identifier. */
export class ManagerConflicts extends Error {
  override readonly name = 'ManagerConflicts';
  constructor(readonly conflicts: ReadonlyMap<string, FieldSet>) {
    super(`${conflicts.size} manager(s) own fields the apply would change`);
  }
}

/** A value could not be walked with its schema (the message is upstream's validation text). */
export class TypedValueError extends Error {
  override readonly name = 'TypedValueError';
  constructor(readonly errors: readonly ValidationError[]) {
    super(formatValidationErrors(errors));
  }
}

/**
 * structured-merge-diff 1.17's `merge.Updater` for one object type. Every manager's set is
 * compared in the request's version: kube converts objects to each manager's version; the
 * vK8s API serves one version per kind, so that conversion is the identity here.
 */
export class Updater {
  constructor(
    private readonly type: TypeNode,
    private readonly ctx: TypeContext,
  ) {}

  /**
   * After a create, update or patch (`live` empty for a create): fields the operation added or
   * changed leave their owners and join `manager`'s set; removed fields leave every set.
   * `manager` is the plain name under which the new set is returned.
   */
  update(live: unknown, next: unknown, version: string, managers: ManagerSets, manager: string): ManagerSets {
    const diff = this.compare(live, next);
    const out = this.settle(diff, new Map(managers), manager, true);
    const set = (out.get(manager)?.set ?? new FieldSet()).union(diff.modified).union(diff.added).difference(diff.removed);
    if (set.isEmpty()) out.delete(manager);
    else out.set(manager, { set, apiVersion: version, applied: false });
    return out;
  }

  /**
   * Server-side apply: merges `config` into `live`, makes `manager` (an identifier) own exactly
   * the fields of `config`, removes list items and map keys it applied last time and no
   * applier claims any more, and takes changed fields from their owners — which is a
   * {@link ManagerConflicts} unless `force`.
   */
  apply(live: unknown, config: unknown, version: string, managers: ManagerSets, manager: string, force: boolean): { object: unknown; managers: ManagerSets } {
    const out = new Map(managers);
    const merged = mergeObjects(live, config, this.type, this.ctx);
    if (merged.errors.length > 0) throw new TypedValueError(merged.errors);
    let object = merged.value;
    const lastSet = out.get(manager);
    out.set(manager, { set: this.fieldSet(config), apiVersion: version, applied: true });
    if (lastSet !== undefined && !lastSet.set.isEmpty()) object = this.prune(object, out, lastSet.set);
    return { object, managers: this.settle(this.compare(live, object), out, manager, force) };
  }

  /** Takes changed fields from every manager but `workflow` (a conflict unless `force`), removed fields from all. */
  private settle(diff: Comparison, managers: ManagerSets, workflow: string, force: boolean): ManagerSets {
    const changed = diff.modified.union(diff.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [id, owned] of managers) {
      if (id === workflow) continue;
      const conflict = owned.set.intersection(changed);
      if (!conflict.isEmpty()) conflicts.set(id, conflict);
    }
    if (!force && conflicts.size > 0) throw new ManagerConflicts(conflicts);
    for (const [id, owned] of managers) {
      if (id === workflow) continue;
      const conflict = conflicts.get(id);
      const set = (conflict === undefined ? owned.set : owned.set.difference(conflict)).difference(diff.removed);
      managers.set(id, { ...owned, set });
    }
    for (const [id, owned] of managers) if (owned.set.isEmpty()) managers.delete(id);
    return managers;
  }

  /** Removes what the manager applied last time unless some applier (itself included) still claims it. */
  private prune(merged: unknown, managers: ManagerSets, lastSet: FieldSet): unknown {
    const pruned = removeItems(merged, lastSet, this.type, this.ctx);
    let claimed = new FieldSet();
    for (const owned of managers.values()) if (owned.applied) claimed = claimed.union(owned.set);
    const mergedSet = this.fieldSet(merged);
    const ownedBack = removeItems(merged, mergedSet.difference(this.fieldSet(pruned).union(claimed)), this.type, this.ctx);
    return removeItems(merged, mergedSet.difference(this.fieldSet(ownedBack)).intersection(lastSet), this.type, this.ctx);
  }

  private compare(lhs: unknown, rhs: unknown): Comparison {
    const diff = compareObjects(lhs, rhs, this.type, this.ctx);
    if (diff.errors.length > 0) throw new TypedValueError(diff.errors);
    return diff;
  }

  private fieldSet(value: unknown): FieldSet {
    const { set, errors } = toFieldSet(value, this.type, this.ctx);
    if (errors.length > 0) throw new TypedValueError(errors);
    return set;
  }
}
