import type { KubeObject } from '../../vk8s/object.js';
import { REVISION_ANNOTATION } from './deployment-annotations.js';
import { byCreation, rsViewOf } from './replica-set-view.js';

/**
 * Which ReplicaSet of each revision carries kube's `deployment.kubernetes.io/revision`.
 *
 * A Deployment has one ReplicaSet per site and template, so several ReplicaSets share a
 * revision. kubectl reads revisions from that annotation on the client side: `rollout undo`
 * takes as "previous" the second-highest revision it meets while scanning the ReplicaSets,
 * so two ReplicaSets of the newest revision make it roll back onto the current template
 * ("skipped rollback"). The platform therefore keeps every ReplicaSet's revision in
 * `svc.io/revision` (what this controller reads) and puts kube's annotation on one
 * ReplicaSet per revision, its holder: the ReplicaSet that carries it already while it
 * exists (a stable choice), else the oldest live one (creation time, then name). A revision
 * none of the Deployment's existing ReplicaSets has (a new template) is held by the first
 * ReplicaSet created for it.
 */
export class RevisionHolders {
  private readonly holders = new Map<number, string>();
  private readonly revisions = new Map<string, number>();

  /** `revisionOf(rs)`: the revision `rs` has after this sync (a new ReplicaSet brought back by a rollback gets the current one). */
  constructor(owned: readonly KubeObject[], revisionOf: (rs: KubeObject) => number) {
    const live = owned.filter((rs) => rs.metadata.deletionTimestamp === undefined);
    const byRevision = new Map<number, KubeObject[]>();
    for (const rs of live) {
      const revision = revisionOf(rs);
      this.revisions.set(rs.metadata.name ?? '', revision);
      byRevision.set(revision, [...(byRevision.get(revision) ?? []), rs]);
    }
    for (const [revision, rss] of byRevision) {
      const ordered = rss.slice().sort((a, b) => byCreation(rsViewOf(a), rsViewOf(b)));
      const holder = ordered.find((rs) => rs.metadata.annotations?.[REVISION_ANNOTATION] === String(revision)) ?? ordered[0];
      if (holder !== undefined) this.holders.set(revision, holder.metadata.name ?? '');
    }
  }

  /** Whether the existing ReplicaSet `name` holds its revision. */
  holds(name: string): boolean {
    const revision = this.revisions.get(name);
    return revision !== undefined && this.holders.get(revision) === name;
  }

  /** Whether the ReplicaSet `name` about to be created for `revision` holds it (it does when no other has that revision). */
  claim(revision: number, name: string): boolean {
    const holder = this.holders.get(revision);
    if (holder === undefined) {
      this.holders.set(revision, name);
      this.revisions.set(name, revision);
      return true;
    }
    return holder === name;
  }
}
