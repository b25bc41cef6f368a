import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startKubectlMatrix, type KubectlMatrix } from './support/kubectl-matrix.js';

/** A Deployment whose one container has `security` (YAML flow mapping) and the pod `podSecurity`. */
function deployment(name: string, security = '{}', podSecurity = '{}', extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      securityContext: ${podSecurity}
${extra}      containers:
      - {name: c, image: busybox, securityContext: ${security}}
`;
}

const RESTRICTED_POD = '{runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}';
const RESTRICTED_CONTAINER = '{allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}';
const LABEL = 'pod-security.kubernetes.io';

/** Pod Security admission through both kubectls: the platform's baseline floor, and the namespace labels. */
describe('vK8s Pod Security admission with kubectl 1.20 and the newest kubectl', () => {
  let m: KubectlMatrix;
  before(async () => {
    m = await startKubectlMatrix();
  });
  after(async () => {
    await m?.close();
  });

  it('baseline is the floor: a template asking for host root is refused with kube\'s words, whatever the labels say', async () => {
    for (const c of m.clients) {
      const refusals: Array<[string, string]> = [
        ['{privileged: true}', 'privileged (container "c" must not set securityContext.privileged=true)'],
        ['{capabilities: {add: [SYS_ADMIN]}}', 'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)'],
        ['{capabilities: {add: [NET_ADMIN, NET_RAW]}}', 'non-default capabilities (container "c" must not include "NET_ADMIN", "NET_RAW" in securityContext.capabilities.add)'],
        ['{procMount: Unmasked}', 'procMount (container "c" must not set securityContext.procMount to "Unmasked")'],
      ];
      for (const [i, [security, detail]] of refusals.entries()) {
        const name = `host-${i}-${c.tag}`;
        const stderr = await m.fails(c, ['apply', '-f', '-'], { input: deployment(name, security) });
        assert.equal(stderr, `Error from server (Forbidden): error when creating "STDIN": deployments.apps "${name}" is forbidden: violates PodSecurity "baseline:latest": ${detail}\n`, c.label);
      }
      const hostNetwork = await m.fails(c, ['apply', '-f', '-'], { input: deployment(`net-${c.tag}`, '{}', '{}', '      hostNetwork: true\n      hostPID: true\n') });
      assert.match(hostNetwork, /violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true, hostPID=true\)/, c.label);
      const sysctl = await m.fails(c, ['apply', '-f', '-'], { input: deployment(`sysctl-${c.tag}`, '{}', '{sysctls: [{name: kernel.core_pattern, value: "|/tmp/x"}]}') });
      assert.match(sysctl, /forbidden sysctls \(kernel.core_pattern\)/, c.label);
      await m.ok(c, ['apply', '-f', '-'], { input: deployment(`ok-${c.tag}`, '{capabilities: {add: [NET_BIND_SERVICE]}}', '{sysctls: [{name: net.ipv4.ip_unprivileged_port_start, value: "0"}]}') });
    }
    await m.ok(m.clients[0] ?? assert.fail(), ['label', 'namespace', 'default', `${LABEL}/enforce=privileged`]);
    const stderr = await m.fails(m.clients[0] ?? assert.fail(), ['apply', '-f', '-'], { input: deployment('still-refused', '{privileged: true}') });
    assert.match(stderr, /violates PodSecurity "baseline:latest": privileged/, 'labels never go below the floor');
    await m.ok(m.clients[0] ?? assert.fail(), ['label', 'namespace', 'default', `${LABEL}/enforce-`]);
  });

  it('the namespace labels enforce and warn restricted: a refused template, a warning kubectl prints, a compliant template admitted', async () => {
    const [old] = m.clients;
    assert.ok(old !== undefined);
    const labelled = await m.run(old, ['label', '--overwrite', 'namespace', 'default', `${LABEL}/warn=restricted`]);
    assert.equal(labelled.status, 0, labelled.stderr);
    for (const c of m.clients) {
      const warned = await m.run(c, ['apply', '-f', '-'], { input: deployment(`warned-${c.tag}`) });
      assert.equal(warned.status, 0, warned.stderr);
      assert.match(warned.stderr, /^Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "c" must set securityContext.allowPrivilegeEscalation=false\), unrestricted capabilities .*seccompProfile \(pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"\)$/m, c.label);
    }
    const enforced = await m.run(old, ['label', '--overwrite', 'namespace', 'default', `${LABEL}/enforce=restricted`, `${LABEL}/enforce-version=v1.30`]);
    assert.equal(enforced.status, 0, enforced.stderr);
    for (const c of m.clients) {
      const refused = await m.fails(c, ['apply', '-f', '-'], { input: deployment(`plain-${c.tag}`) });
      assert.match(refused, new RegExp(`^Error from server \\(Forbidden\\): error when creating "STDIN": deployments.apps "plain-${c.tag}" is forbidden: violates PodSecurity "restricted:v1.30": allowPrivilegeEscalation != false`), c.label);
      const admitted = await m.run(c, ['apply', '-f', '-'], { input: deployment(`strict-${c.tag}`, RESTRICTED_CONTAINER, RESTRICTED_POD) });
      assert.equal(admitted.status, 0, admitted.stderr);
      assert.doesNotMatch(admitted.stderr, /Warning/, c.label);
      const stored = await m.read(`apis/apps/v1/namespaces/default/deployments/strict-${c.tag}`);
      const spec = (stored['spec'] as { template: { spec: { securityContext: Record<string, unknown> } } }).template.spec;
      assert.deepEqual(spec.securityContext['seccompProfile'], { type: 'RuntimeDefault' }, 'seccompProfile (Kubernetes 1.19) is kept');
    }
    const namespace = JSON.parse(await m.ok(old, ['get', 'namespace', 'default', '-o', 'json'])) as { metadata: { labels: Record<string, string> } };
    assert.equal(namespace.metadata.labels[`${LABEL}/enforce`], 'restricted');
    await m.ok(old, ['label', 'namespace', 'default', `${LABEL}/enforce-`, `${LABEL}/enforce-version-`, `${LABEL}/warn-`]);
  });

  it('a label the admission cannot read is 422 naming it; monitors and editors cannot relabel the namespace', async () => {
    for (const c of m.clients) {
      const stderr = await m.fails(c, ['label', '--overwrite', 'namespace', 'default', `${LABEL}/enforce=strict`]);
      assert.match(stderr, /The Namespace "default" is invalid: metadata.labels\[pod-security.kubernetes.io\/enforce\]: Invalid value: "strict": must be one of privileged, baseline, restricted/, c.label);
    }
    const editor = await m.h.call('POST', '/api/web/namespaces/system/api_credentials', { body: { name: 'ed', namespace: 'system', expiration_days: 1, spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: 'default', role: 'editor' }] } } });
    assert.equal(editor.status, 200, editor.body);
    const token = editor.json<{ data: string }>().data;
    const patched = await m.h.call('PATCH', '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default', {
      token,
      raw: JSON.stringify({ metadata: { labels: { [`${LABEL}/enforce`]: 'privileged' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 403, patched.body);
  });
});
