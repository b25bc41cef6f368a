import type { Volume } from '../pod-spec-types.js';
import { procMountCheck, setters, type PodSecurityCheck } from './pss-baseline-checks.js';
import { containerSeccompType, nameOf, podSeccompType, visitedContainers } from './pss-pod.js';
import { containersWord, joinQuote, pluralize, sortedUnique } from './pss-text.js';

const ALLOWED_VOLUME_SOURCES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret']);
/** The volume types restricted names in its message; any other source is "unknown". */
const NAMED_VOLUME_TYPES = new Set([
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc', 'azureFile',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
]);

/** A volume's source field (the one besides `name`), or undefined for a volume with none. */
function sourceOf(volume: Volume): string | undefined {
  return Object.keys(volume).find((key) => key !== 'name' && volume[key] != null);
}

const allowPrivilegeEscalation: PodSecurityCheck = {
  id: 'allowPrivilegeEscalation',
  level: 'restricted',
  since: 8,
  check(pod) {
    const names = visitedContainers(pod.spec).filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map(nameOf);
    return names.length === 0 ? undefined : { reason: 'allowPrivilegeEscalation != false', detail: `${containersWord(names)} must set securityContext.allowPrivilegeEscalation=false` };
  },
};

const capabilitiesRestricted: PodSecurityCheck = {
  id: 'capabilities_restricted',
  level: 'restricted',
  since: 22,
  overrides: { id: 'capabilities_baseline', since: 22 },
  check(pod) {
    const noDrop: string[] = [];
    const adding: string[] = [];
    const added: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const capabilities = c.securityContext?.capabilities;
      if (capabilities == null) {
        noDrop.push(nameOf(c));
        continue;
      }
      if (!(capabilities.drop ?? []).includes('ALL')) noDrop.push(nameOf(c));
      const extra = (capabilities.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
      if (extra.length > 0) {
        adding.push(nameOf(c));
        added.push(...extra);
      }
    }
    const parts = [
      ...(noDrop.length === 0 ? [] : [`${containersWord(noDrop)} must set securityContext.capabilities.drop=["ALL"]`]),
      ...(adding.length === 0 ? [] : [`${containersWord(adding)} must not include ${joinQuote(sortedUnique(added))} in securityContext.capabilities.add`]),
    ];
    return parts.length === 0 ? undefined : { reason: 'unrestricted capabilities', detail: parts.join('; ') };
  },
};

const restrictedVolumes: PodSecurityCheck = {
  id: 'restrictedVolumes',
  level: 'restricted',
  since: 0,
  overrides: { id: 'hostPathVolumes', since: 0 },
  check(pod) {
    const names: string[] = [];
    const types: string[] = [];
    for (const volume of pod.spec.volumes ?? []) {
      const source = sourceOf(volume);
      if (source !== undefined && ALLOWED_VOLUME_SOURCES.has(source)) continue;
      names.push(volume.name ?? '');
      types.push(source !== undefined && NAMED_VOLUME_TYPES.has(source) ? source : 'unknown');
    }
    if (names.length === 0) return undefined;
    const unique = sortedUnique(types);
    const detail = `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('restricted volume type', 'restricted volume types', unique.length)} ${joinQuote(unique)}`;
    return { reason: 'restricted volume types', detail };
  },
};

const runAsNonRoot: PodSecurityCheck = {
  id: 'runAsNonRoot',
  level: 'restricted',
  since: 0,
  check(pod) {
    const podValue = pod.spec.securityContext?.['runAsNonRoot'];
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const value = c.securityContext?.['runAsNonRoot'];
      if (value === false) explicit.push(nameOf(c));
      else if (value !== true && podValue !== true) implicit.push(nameOf(c));
    }
    if (podValue === false || explicit.length > 0) return { reason: 'runAsNonRoot != true', detail: `${setters(podValue === false, explicit)} must not set securityContext.runAsNonRoot=false` };
    if (implicit.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersWord(implicit)} must set securityContext.runAsNonRoot=true` };
    return undefined;
  },
};

const runAsUser: PodSecurityCheck = {
  id: 'runAsUser',
  level: 'restricted',
  since: 23,
  check(pod) {
    const podRoot = pod.spec.securityContext?.runAsUser === 0;
    const names = visitedContainers(pod.spec).filter((c) => c.securityContext?.runAsUser === 0).map(nameOf);
    return !podRoot && names.length === 0 ? undefined : { reason: 'runAsUser=0', detail: `${setters(podRoot, names)} must not set runAsUser=0` };
  },
};

const seccompProfileRestricted: PodSecurityCheck = {
  id: 'seccompProfile_restricted',
  level: 'restricted',
  since: 19,
  overrides: { id: 'seccompProfile_baseline', since: 19 },
  check(pod) {
    const valid = (type: string | undefined): boolean => type === 'RuntimeDefault' || type === 'Localhost';
    const podType = podSeccompType(pod);
    const podBad = podType !== undefined && !valid(podType);
    const values = podBad ? [podType] : [];
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const type = containerSeccompType(pod, c);
      if (type === undefined) {
        if (!valid(podType)) implicit.push(nameOf(c));
      } else if (!valid(type)) {
        explicit.push(nameOf(c));
        values.push(type);
      }
    }
    if (podBad || explicit.length > 0) return { reason: 'seccompProfile', detail: `${setters(podBad, explicit)} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}` };
    if (implicit.length > 0) return { reason: 'seccompProfile', detail: `pod or ${containersWord(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
    return undefined;
  },
};

/** The restricted level's own checks, in kube's order (their ids sorted), after the baseline ones. */
export const RESTRICTED_CHECKS: readonly PodSecurityCheck[] = [
  allowPrivilegeEscalation,
  capabilitiesRestricted,
  { ...procMountCheck('procMount_restricted', 'restricted', 35), overrides: { id: 'procMount', since: 35 } },
  restrictedVolumes,
  runAsNonRoot,
  runAsUser,
  seccompProfileRestricted,
];
