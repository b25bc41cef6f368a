import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ignoredFieldsMessage, ignoredPodFields } from './ignored-fields.js';

describe('fields a runc site does not honour', () => {
  it('names each one kube\'s way, and nothing for a plain pod', () => {
    assert.deepEqual(ignoredPodFields({ containers: [{ name: 'c', ports: [{ containerPort: 80 }], securityContext: { procMount: 'Default' } }] }, {}), []);
    const spec = {
      hostNetwork: true,
      hostPID: true,
      hostIPC: true,
      securityContext: { seLinuxOptions: { type: 'spc_t' } },
      initContainers: [{ name: 'i', securityContext: { procMount: 'Unmasked' } }],
      containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080, hostIP: '0.0.0.0' }], securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'x' } } }],
    };
    const found = ignoredPodFields(spec, { 'container.apparmor.security.beta.kubernetes.io/c': 'localhost/x', 'container.apparmor.security.beta.kubernetes.io/d': 'runtime/default' });
    assert.deepEqual(found, [
      'spec.hostNetwork',
      'spec.hostPID',
      'spec.hostIPC',
      'spec.securityContext.seLinuxOptions',
      'spec.initContainers[0].securityContext.procMount (Unmasked)',
      'spec.containers[0].ports[0].hostPort (8080)',
      'spec.containers[0].ports[0].hostIP',
      'spec.containers[0].securityContext.appArmorProfile (Localhost)',
      'metadata.annotations[container.apparmor.security.beta.kubernetes.io/c] (localhost/x)',
    ]);
    assert.match(ignoredFieldsMessage(found.slice(0, 1)), /own network, PID and IPC namespaces.*ignored: spec\.hostNetwork$/);
  });
});
