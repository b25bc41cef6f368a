import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { type IdentityOwner, isSidecar } from './sidecar-launch.js';
import { containerUid } from '../containers/index.js';

/**
 * Whom the sidecar gives the pod's identity files to, decided from the pod as kubelet decides
 * the ownership of a projected service-account token: the pod's fsGroup owns them as a group
 * (`0:<fsGroup>`; keys 0640, every container of the pod has the fsGroup among its groups);
 * else, when every workload container runs as one user other than root, that user
 * (`<uid>:0`; keys 0640, the group being root's, which only the sidecar has besides that user's
 * own processes: it reads its key back when it restarts); else root keeps them (keys 0600),
 * with `reason` saying why when some workload container cannot read its key.
 */
export type IdentityOwnerDecision =
  | { readonly by: 'fsGroup' | 'user'; readonly owner: IdentityOwner }
  | { readonly by: 'root'; readonly reason?: string };

/** The user each workload container (init containers included) runs as; undefined when its image names the user. */
function workloadUsers(spec: PodSpec, imageUser: (container: Container) => string | undefined): Array<readonly [string, number | undefined]> {
  const workloads = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].filter((c) => !isSidecar(c));
  return workloads.map((c) => [c.name ?? '', containerUid(spec, c, imageUser(c))] as const);
}

/** The rule above. `imageUser` is the `User` of the image a container runs (undefined: none, or the host image). Pure. */
export function identityOwner(spec: PodSpec, imageUser: (container: Container) => string | undefined): IdentityOwnerDecision {
  const fsGroup = spec.securityContext?.fsGroup;
  if (fsGroup !== undefined) return { by: 'fsGroup', owner: { uid: 0, gid: fsGroup } };
  const users = workloadUsers(spec, imageUser);
  const uids = new Set(users.map(([, uid]) => uid));
  const [only] = uids;
  if (uids.size === 1 && only !== undefined && only !== 0) return { by: 'user', owner: { uid: only, gid: 0 } };
  if (users.every(([, uid]) => uid === 0)) return { by: 'root' };
  const described = users.map(([name, uid]) => `${name}: ${uid ?? 'unknown'}`).join(', ');
  return {
    by: 'root',
    reason: `The identity files in /svc/secrets/identity stay root's (keys 0600): the pod's containers run as different users (${described}) and the pod has no fsGroup; set spec.securityContext.fsGroup to let them read their keys`,
  };
}

/** {@link identityOwner} of a pod whose images are looked up in the site's store (a host image has no user). */
export async function podIdentityOwner(spec: PodSpec, resolve: (image: string) => Promise<{ readonly config: { readonly user?: string } } | undefined>): Promise<IdentityOwnerDecision> {
  const users = new Map<string, string | undefined>();
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    const image = container.image ?? '';
    if (!isSidecar(container) && !users.has(image)) users.set(image, (await resolve(image).catch(() => undefined))?.config.user);
  }
  return identityOwner(spec, (container) => users.get(container.image ?? ''));
}
