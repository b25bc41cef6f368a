import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container, PodSpec } from '../pod-spec-types.js';
import { evaluatePodSecurity, forbiddenDetail, forbiddenReason, namespacePolicy, withFloor, type PodSecurityView } from './index.js';

const pod = (spec: PodSpec, annotations: Record<string, string> = {}): PodSecurityView => ({ annotations, spec });
const c = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: 'i', ...extra });
const baseline = (view: PodSecurityView): string => forbiddenDetail(evaluatePodSecurity({ level: 'baseline' }, view));
const restricted = (view: PodSecurityView): string => forbiddenDetail(evaluatePodSecurity({ level: 'restricted' }, view));

/** A pod restricted allows: the minimal one kube's documentation gives. */
const RESTRICTED_OK: PodSpec = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [c('app', { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } })],
};

describe('Pod Security Standards: baseline, in kube\'s words and order', () => {
  it('allows an ordinary pod and flags each host access the way Pod Security Admission does', () => {
    assert.equal(baseline(pod({ containers: [c('web')] })), '');
    const spec: PodSpec = {
      hostNetwork: true,
      hostPID: true,
      hostIPC: true,
      volumes: [{ name: 'root', hostPath: { path: '/' } }, { name: 'tmp', emptyDir: {} }],
      initContainers: [c('init', { securityContext: { privileged: true } })],
      containers: [
        c('a', { securityContext: { capabilities: { add: ['SYS_ADMIN', 'NET_ADMIN', 'CHOWN'] }, privileged: true }, ports: [{ containerPort: 80, hostPort: 80 }] }),
        c('b', { securityContext: { capabilities: { add: ['NET_RAW'] }, procMount: 'Unmasked' }, ports: [{ containerPort: 443, hostPort: 443 }, { containerPort: 1000, hostPort: 1000 }] }),
      ],
    };
    assert.equal(
      baseline(pod(spec)),
      'non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add), ' +
        'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true), hostPath volumes (volume "root"), ' +
        'hostPort (containers "a", "b" use hostPorts 1000, 443, 80), privileged (containers "init", "a" must not set securityContext.privileged=true), ' +
        'procMount (container "b" must not set securityContext.procMount to "Unmasked")',
    );
    assert.equal(forbiddenReason(evaluatePodSecurity({ level: 'baseline' }, pod({ hostNetwork: true, containers: [c('x', { securityContext: { privileged: true } })] }))), 'host namespaces, privileged');
  });

  it('checks sysctls against the safe set of the version, seccomp Unconfined (field or 1.17 annotation), AppArmor, SELinux and probe hosts', () => {
    const sysctls = pod({ securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: '|/x' }, { name: 'net.ipv4.tcp_rmem', value: '1 2 3' }, { name: 'net.ipv4.ip_local_port_range', value: '1 2' }] }, containers: [c('a')] });
    assert.equal(baseline(sysctls), 'forbidden sysctls (kernel.core_pattern)');
    assert.equal(forbiddenDetail(evaluatePodSecurity({ level: 'baseline', minor: 27 }, sysctls)), 'forbidden sysctls (kernel.core_pattern, net.ipv4.tcp_rmem)', 'tcp_rmem is safe only from 1.32');
    assert.equal(baseline(pod({ securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [c('a')] })), 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")');
    assert.equal(
      baseline(pod({ containers: [c('a'), c('b')] }, { 'container.seccomp.security.alpha.kubernetes.io/b': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' })),
      'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a="unconfined""), seccompProfile (container "b" must not set securityContext.seccompProfile.type to "Unconfined")',
    );
    assert.equal(
      baseline(pod({ securityContext: { seLinuxOptions: { type: 'spc_t', user: 'root' } }, containers: [c('a', { securityContext: { seLinuxOptions: { role: 'r' } } })] })),
      'seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
    );
    const probe = pod({ containers: [c('a', { livenessProbe: { httpGet: { host: 'localhost', port: 80 } }, lifecycle: { preStop: { tcpSocket: { host: '10.0.0.1', port: 1 } } } })] });
    assert.equal(baseline(probe), 'probe or lifecycle host (container "a" uses probe or lifecycle hosts "10.0.0.1", "localhost")');
    assert.equal(forbiddenDetail(evaluatePodSecurity({ level: 'baseline', minor: 30 }, probe)), '', 'the probe host check applies from 1.34');
  });
});

describe('Pod Security Standards: restricted', () => {
  it('allows the minimal restricted pod, and lists what an ordinary pod lacks as kube does', () => {
    assert.equal(restricted(pod(RESTRICTED_OK)), '');
    assert.equal(
      restricted(pod({ containers: [c('nginx')] })),
      'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  it('reports explicit settings before implicit ones, root users, added capabilities and volume types', () => {
    const spec: PodSpec = {
      securityContext: { runAsNonRoot: false, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } },
      volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'n', nfs: { server: 's', path: '/' } }, { name: 'ok', configMap: { name: 'c' } }],
      containers: [
        c('a', { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['CHOWN', 'NET_BIND_SERVICE'] }, runAsUser: 0 } }),
        c('b', { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'Unconfined' } } }),
      ],
    };
    assert.equal(
      restricted(pod(spec)),
      'unrestricted capabilities (container "a" must not include "CHOWN" in securityContext.capabilities.add), ' +
        'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs"), ' +
        'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod and container "a" must not set runAsUser=0), ' +
        'seccompProfile (container "b" must not set securityContext.seccompProfile.type to "Unconfined")',
    );
  });
});

describe('namespace policy from the pod-security.kubernetes.io labels', () => {
  it('reads levels and versions, lets warn follow enforce, and falls back as kube does on values it cannot read', () => {
    assert.deepEqual(namespacePolicy({}).policy, { enforce: { level: 'privileged' }, audit: { level: 'privileged' }, warn: { level: 'privileged' } });
    const labelled = namespacePolicy({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30', 'pod-security.kubernetes.io/audit': 'restricted' });
    assert.deepEqual(labelled.policy, { enforce: { level: 'baseline', minor: 30 }, audit: { level: 'restricted' }, warn: { level: 'baseline', minor: 30 } });
    const broken = namespacePolicy({ 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn': 'loud', 'pod-security.kubernetes.io/warn-version': '1.25' });
    assert.deepEqual(broken.policy, { enforce: { level: 'restricted' }, audit: { level: 'privileged' }, warn: { level: 'privileged' } });
    assert.deepEqual(broken.problems, [
      { label: 'pod-security.kubernetes.io/enforce', value: 'strict', message: 'must be one of privileged, baseline, restricted' },
      { label: 'pod-security.kubernetes.io/warn', value: 'loud', message: 'must be one of privileged, baseline, restricted' },
      { label: 'pod-security.kubernetes.io/warn-version', value: '1.25', message: 'must be "latest" or "v1.x"' },
    ]);
    assert.deepEqual(withFloor(namespacePolicy({ 'pod-security.kubernetes.io/enforce': 'privileged' }).policy, 'baseline').enforce, { level: 'baseline' });
    assert.deepEqual(withFloor(namespacePolicy({ 'pod-security.kubernetes.io/enforce': 'restricted' }).policy, 'baseline').enforce, { level: 'restricted' });
  });
});
