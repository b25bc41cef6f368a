import type { PlacedSite } from '../placement/placed-site.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import type { ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { canonicalJson, withoutHashLabel } from './pod-template-hash.js';
import { byCreation, rsViewOf } from './replica-set-view.js';

/** A Deployment's ReplicaSets on one site. */
export interface SiteGroup {
  readonly site: string;
  /** The site as placement gives it; undefined when the Deployment left the site (its ReplicaSets drain). */
  readonly placed?: PlacedSite;
  /** The ReplicaSet whose template is the Deployment's (the oldest, should there be several). */
  readonly newRS?: KubeObject;
  readonly oldRSs: readonly KubeObject[];
}

/** Canonical forms of templates, per (immutable, informer-shared) template object. */
const templateKeys = new WeakMap<object, string>();

/** A template's canonical JSON without the hash label: equal keys ⇔ kube's EqualIgnoreHash (nil and empty alike). */
export function templateKey(template: PodTemplateSpec | undefined): string {
  if (template === undefined) return canonicalJson(undefined);
  let key = templateKeys.get(template);
  if (key === undefined) templateKeys.set(template, (key = canonicalJson(withoutHashLabel(template))));
  return key;
}

/** kube's EqualIgnoreHash: the templates match but for the pod-template-hash label. */
export function sameTemplate(rs: KubeObject, template: PodTemplateSpec | undefined): boolean {
  return templateKey(specOf<ReplicaSetSpec>(rs).template) === templateKey(template);
}

/**
 * The Deployment's ReplicaSets by site (their `svc.io/siteName` label): every placed site,
 * with or without ReplicaSets, then the sites it left that still have some (a ReplicaSet
 * without the label counts as a left site named ""). A site's ReplicaSets oldest first.
 */
export function groupBySite(owned: readonly KubeObject[], placed: readonly PlacedSite[], template: PodTemplateSpec | undefined): SiteGroup[] {
  const bySite = new Map<string, KubeObject[]>();
  for (const rs of owned) {
    const site = rs.metadata.labels?.[POD_SITE_LABEL] ?? '';
    const list = bySite.get(site);
    if (list === undefined) bySite.set(site, [rs]);
    else list.push(rs);
  }
  const placedByName = new Map(placed.map((s) => [s.name, s]));
  const names = new Set([...placedByName.keys(), ...bySite.keys()]);
  const wanted = templateKey(template);
  return [...names].map((site) => {
    const found = bySite.get(site) ?? [];
    const rss = found.length < 2 ? found : found.slice().sort((a, b) => byCreation(rsViewOf(a), rsViewOf(b)));
    const where = placedByName.get(site);
    const newRS = where === undefined ? undefined : rss.find((rs) => templateKey(specOf<ReplicaSetSpec>(rs).template) === wanted);
    return { site, ...(where === undefined ? {} : { placed: where }), ...(newRS === undefined ? {} : { newRS }), oldRSs: rss.filter((rs) => rs !== newRS) };
  });
}

/**
 * The revision of the Deployment's current template (kube's newRevision, across sites so
 * every site's new ReplicaSet gets the same number): one more than the highest revision of
 * the ReplicaSets of other templates — or the revision ReplicaSets of this template already
 * carry, when higher.
 */
export function currentRevision(owned: readonly KubeObject[], template: PodTemplateSpec | undefined): number {
  let older = 0;
  let current = 0;
  const wanted = templateKey(template);
  for (const rs of owned) {
    const revision = rsViewOf(rs).revision;
    if (templateKey(specOf<ReplicaSetSpec>(rs).template) === wanted) current = Math.max(current, revision);
    else older = Math.max(older, revision);
  }
  return Math.max(older + 1, current);
}
