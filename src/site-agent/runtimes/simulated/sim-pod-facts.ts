import { createHash } from 'node:crypto';
import type { KubeObject } from '../../../apimachinery/object.js';
import { podQosClass } from '../../../api/pod-spec-qos.js';
import type { Container, PodSpec } from '../../../api/pod-spec-types.js';
import { EXIT_CODE_ANNOTATION, RUN_SECONDS_ANNOTATION, type SimOptions } from './sim-options.js';
import type { RestartPolicy, SimContainer, SimPodFacts } from './sim-pod.js';
import { metav1Time } from '../../../apimachinery/meta-time.js';

/** The image as a runtime reports it: `:latest` added when it has neither tag nor digest. */
function reportedImage(image: string): string {
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  return image.includes('@') || lastSegment.includes(':') ? image : `${image}:latest`;
}

function imageIdOf(image: string): string {
  const repository = image.split('@')[0]?.replace(/:[^/:]*$/, '') ?? image;
  return `simulated://${repository}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

function simContainer(container: Container, readyMs: number, probes: boolean): SimContainer {
  const image = reportedImage(container.image ?? '');
  const probeDelay = probes && container.readinessProbe !== undefined ? (container.readinessProbe.initialDelaySeconds ?? 0) * 1000 : 0;
  return { name: container.name ?? '', image, imageID: imageIdOf(image), readyDelayMs: probes ? readyMs + probeDelay : 0 };
}

/** The run plan of a pod: the annotations, else `runMs` for pods that are meant to finish (Never / OnFailure). */
function runOf(annotations: Readonly<Record<string, string>>, policy: RestartPolicy, options: SimOptions): SimPodFacts['run'] {
  const seconds = Number(annotations[RUN_SECONDS_ANNOTATION]);
  const code = Number(annotations[EXIT_CODE_ANNOTATION] ?? '0');
  const exitCode = Number.isInteger(code) && code >= 0 && code <= 255 ? code : 0;
  if (annotations[RUN_SECONDS_ANNOTATION] !== undefined && Number.isFinite(seconds) && seconds >= 0) return { ms: seconds * 1000, exitCode };
  if (policy !== 'Always') return { ms: options.runMs, exitCode };
  return undefined;
}

/**
 * What the simulated runtime keeps of a pod it accepts (the pod object itself is not kept):
 * containers (image reported with a tag, a digest made from its name, the ready delay),
 * restartPolicy, QoS class (the pod's, else computed), the addresses the runtime gave it,
 * when the scheduler bound it, and its run plan (annotations `sim.edgeplane.io/…`). Pure.
 */
export function simPodFactsOf(pod: KubeObject, addresses: { readonly hostIP: string; readonly podIP: string }, options: SimOptions, now: number): SimPodFacts {
  const spec = (pod['spec'] ?? {}) as PodSpec;
  const status = (pod['status'] ?? {}) as { qosClass?: string; conditions?: Array<{ type?: string; status?: string; lastTransitionTime?: string }> };
  const policy: RestartPolicy = spec.restartPolicy === 'Never' || spec.restartPolicy === 'OnFailure' ? spec.restartPolicy : 'Always';
  const scheduled = status.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'True')?.lastTransitionTime;
  const annotations = pod.metadata.annotations ?? {};
  const run = runOf(annotations, policy, options);
  return {
    name: pod.metadata.name ?? '',
    namespace: pod.metadata.namespace ?? '',
    uid: pod.metadata.uid ?? '',
    containers: (spec.containers ?? []).map((c) => simContainer(c, options.readyMs, true)),
    initContainers: (spec.initContainers ?? []).map((c) => simContainer(c, 0, false)),
    restartPolicy: policy,
    qosClass: status.qosClass ?? podQosClass(spec),
    hostIP: addresses.hostIP,
    podIP: addresses.podIP,
    scheduledAt: scheduled ?? metav1Time(now),
    ...(run === undefined ? {} : { run }),
  };
}
