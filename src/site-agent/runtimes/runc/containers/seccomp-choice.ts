import { CONTAINER_SECCOMP_ANNOTATION, POD_SECCOMP_ANNOTATION } from '../../../../api/pod-security/index.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { RUNTIME_DEFAULT_SECCOMP, resolveSeccomp, type SeccompHost, type SeccompTemplate } from '../oci/index.js';
import type { OciSeccomp } from '../oci/index.js';
import { ContainerConfigError } from './container-env.js';

/** The seccomp profile a container asked for (or got by default). */
export type SeccompChoice =
  | { readonly type: 'RuntimeDefault' }
  | { readonly type: 'Unconfined' }
  | { readonly type: 'Localhost'; readonly localhostProfile: string };

/** The profile a launch applies: the choice with a Localhost profile's template read. */
export type SeccompSource = { readonly type: 'RuntimeDefault' } | { readonly type: 'Unconfined' } | { readonly type: 'Localhost'; readonly template: SeccompTemplate };


function fromField(context: Record<string, unknown> | undefined): SeccompChoice | undefined {
  const profile = context?.['seccompProfile'] as { type?: unknown; localhostProfile?: unknown } | undefined;
  if (profile === undefined || profile === null) return undefined;
  if (profile.type === 'RuntimeDefault' || profile.type === 'Unconfined') return { type: profile.type };
  if (profile.type === 'Localhost') {
    if (typeof profile.localhostProfile !== 'string' || profile.localhostProfile === '') throw new ContainerConfigError('seccompProfile.type Localhost needs localhostProfile');
    return { type: 'Localhost', localhostProfile: profile.localhostProfile };
  }
  throw new ContainerConfigError(`seccompProfile.type "${String(profile.type)}" is not RuntimeDefault, Localhost or Unconfined`);
}

function fromAnnotation(value: string | undefined): SeccompChoice | undefined {
  if (value === undefined) return undefined;
  if (value === 'runtime/default' || value === 'docker/default') return { type: 'RuntimeDefault' };
  if (value === 'unconfined') return { type: 'Unconfined' };
  if (value.startsWith('localhost/') && value.length > 'localhost/'.length) return { type: 'Localhost', localhostProfile: value.slice('localhost/'.length) };
  throw new ContainerConfigError(`seccomp annotation "${value}" is not runtime/default, docker/default, unconfined or localhost/<profile>`);
}

/**
 * The seccomp profile a container runs under, as kubelet picks it: the container's
 * `securityContext.seccompProfile`, else its 1.17 annotation
 * (`container.seccomp.security.alpha.kubernetes.io/<name>`), else the pod's field, else the
 * pod's annotation, else **RuntimeDefault** (kubelet's `--seccomp-default`: every site
 * filters system calls unless a pod asks otherwise). Throws ContainerConfigError for a value
 * kube would not accept. Pure.
 */
export function seccompChoice(spec: PodSpec, annotations: Readonly<Record<string, string>>, container: Container): SeccompChoice {
  return (
    fromField(container.securityContext) ??
    fromAnnotation(annotations[`${CONTAINER_SECCOMP_ANNOTATION}${container.name ?? ''}`]) ??
    fromField(spec.securityContext) ??
    fromAnnotation(annotations[POD_SECCOMP_ANNOTATION]) ?? { type: 'RuntimeDefault' }
  );
}

/**
 * A Localhost profile's place below the site's profile folder (kubelet's
 * `<root-dir>/seccomp`): a relative path without `..` (a tenant names it; the folder is the
 * site administrator's). Throws ContainerConfigError. Pure.
 */
export function localhostProfilePath(name: string): string {
  const steps = name.split('/');
  if (name.startsWith('/') || name.includes('\0') || steps.some((step) => step === '..' || step === '')) {
    throw new ContainerConfigError(`localhostProfile "${name}" must be a relative path below the site's seccomp profile folder, without ".."`);
  }
  return steps.join('/');
}

/**
 * The filter a container gets: none when privileged (as containerd: a privileged container is
 * unconfined) or unconfined by choice; otherwise the profile resolved for the container's
 * bounding set on this machine. Pure.
 */
export function seccompFilter(source: SeccompSource, host: SeccompHost, bounding: readonly string[], privileged: boolean): OciSeccomp | undefined {
  if (privileged || source.type === 'Unconfined') return undefined;
  return resolveSeccomp(source.type === 'Localhost' ? source.template : RUNTIME_DEFAULT_SECCOMP, host, bounding);
}
