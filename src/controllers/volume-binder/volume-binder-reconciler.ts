import type { Logger } from '../../observability/logger.js';
import type { PlacementView } from '../placement/placement-view.js';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import { jsonEqual } from '../../apimachinery/object.js';
import type { ObjectWriter } from '../controller-kit/object-writer.js';
import { isTerminating } from '../runtime/pod-state.js';
import { siteOf } from '../controller-kit/site-of.js';
import { formatSiteStatus } from '../controller-kit/site-status.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Informer } from '../runtime/object-informer.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { boundClaim, boundStatus, isBound, volumeNameFor } from './claim-binding.js';
import { ensureVolume, type VolumeProvisioningDeps } from './volume-provisioning.js';

const CLAIM_RESOURCE = { group: '', resource: 'persistentvolumeclaims' } as const;
const COMPONENT = 'persistentvolume-controller';

export interface VolumeBinderDeps extends VolumeProvisioningDeps {
  readonly claims: Informer;
  readonly writer: ObjectWriter;
  readonly placement: PlacementView;
  readonly events: EventRecorder;
  readonly logger: Logger;
}

/**
 * One reconcile of one claim. Sites provide the storage, so the platform is a simple
 * provisioner:
 * - a claim made for one site (label `svc.io/siteName`: StatefulSet claims) is bound at once;
 * - a claim a user created is placed like the other placed kinds (its annotations, else the
 *   vK8s default): each site it is placed on provides a volume of that name, the sites are
 *   listed in its `svc.io/site-status` annotation (kept current as placement changes), and it
 *   is bound as soon as one site holds it; placed nowhere, it stays Pending with a
 *   FailedBinding event.
 * Binding first provisions the claim's PersistentVolume `pvc-<uid>` (provisioned-volume.ts:
 * claimRef, the sites in its node affinity, reclaim policy Delete; status Bound), then sets the
 * claim's spec.volumeName and kube's bind annotations, then its status Bound with the
 * requested access modes and the storage request as capacity. A Bound claim stays Bound (kube
 * never unbinds a claim); a volume name another claim's volume holds is a FailedBinding.
 */
export function volumeBinderReconciler(deps: VolumeBinderDeps): (key: ObjectKey) => Promise<ReconcileResult | void> {
  return async (key) => {
    const claim = deps.claims.get(key.cluster, key.name);
    if (claim === undefined || isTerminating(claim)) return;
    const uid = claim.metadata.uid ?? '';
    const ownSite = siteOf(claim);
    let sites: string[];
    let extra: Record<string, string> = {};
    if (ownSite !== undefined) {
      sites = [ownSite];
    } else {
      sites = deps.placement.sitesFor(CLAIM_RESOURCE, key.cluster, claim).map((s) => s.name).sort();
      extra = { [SITE_STATUS_ANNOTATION]: formatSiteStatus(Object.fromEntries(sites.map((s) => [s, { phase: 'Bound', volumeName: volumeNameFor(claim) }]))) };
      if (sites.length === 0) {
        if (isBound(claim)) await deps.writer.update(key.cluster, key.name, uid, (current) => boundClaim(current, extra));
        else deps.events.record(key.cluster, claim, 'Warning', 'FailedBinding', 'no site is selected for this claim: it is bound once it is placed on a site', COMPONENT);
        return;
      }
    }
    const wasBound = isBound(claim);
    if ((await ensureVolume(deps, key.cluster, claim, volumeNameFor(claim), sites)) === 'taken') {
      deps.events.record(key.cluster, claim, 'Warning', 'FailedBinding', `volume "${volumeNameFor(claim)}" is bound to another claim`, COMPONENT);
      return;
    }
    const bound = await deps.writer.update(key.cluster, key.name, uid, (current) => boundClaim(current, extra));
    if (bound === 'gone') return;
    const written = await deps.writer.update(
      key.cluster,
      key.name,
      uid,
      (current) => {
        const status = boundStatus(current);
        return jsonEqual(status, current.status) ? undefined : { ...current, status };
      },
      'status',
    );
    if (!wasBound && written === 'written') {
      deps.events.record(key.cluster, claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeNameFor(claim)} on site${sites.length > 1 ? 's' : ''} ${sites.join(', ')}`, COMPONENT);
    }
  };
}
