import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContainerConfigError } from './container-env.js';
import { localhostProfilePath, seccompChoice, seccompFilter } from './seccomp-choice.js';

const host = { arch: 'amd64', kernel: '6.18.0' };

describe('a container\'s seccomp profile', () => {
  it('is RuntimeDefault unless the pod asks otherwise', () => {
    assert.deepEqual(seccompChoice({}, {}, { name: 'a' }), { type: 'RuntimeDefault' });
  });

  it('takes the container\'s field, then its 1.17 annotation, then the pod\'s field, then the pod\'s annotation', () => {
    const annotations = { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/b': 'localhost/profiles/b.json' };
    const spec = { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } };
    assert.deepEqual(seccompChoice(spec, annotations, { name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } }), { type: 'Unconfined' });
    assert.deepEqual(seccompChoice(spec, annotations, { name: 'b' }), { type: 'Localhost', localhostProfile: 'profiles/b.json' });
    assert.deepEqual(seccompChoice(spec, annotations, { name: 'c' }), { type: 'RuntimeDefault' });
    assert.deepEqual(seccompChoice({}, annotations, { name: 'c' }), { type: 'Unconfined' });
    assert.deepEqual(seccompChoice({}, { 'seccomp.security.alpha.kubernetes.io/pod': 'docker/default' }, { name: 'c' }), { type: 'RuntimeDefault' });
  });

  it('refuses what kube would not accept', () => {
    assert.throws(() => seccompChoice({}, {}, { name: 'a', securityContext: { seccompProfile: { type: 'Localhost' } } }), ContainerConfigError);
    assert.throws(() => seccompChoice({}, {}, { name: 'a', securityContext: { seccompProfile: { type: 'Strict' } } }), ContainerConfigError);
    assert.throws(() => seccompChoice({}, { 'seccomp.security.alpha.kubernetes.io/pod': 'localhost/' }, { name: 'a' }), ContainerConfigError);
  });

  it('names a Localhost profile below the site\'s folder only', () => {
    assert.equal(localhostProfilePath('profiles/audit.json'), 'profiles/audit.json');
    for (const bad of ['/etc/passwd', '../x.json', 'a/../../x', 'a//b', '']) assert.throws(() => localhostProfilePath(bad), ContainerConfigError, bad);
  });

  it('filters every container but a privileged or unconfined one', () => {
    assert.equal(seccompFilter({ type: 'RuntimeDefault' }, host, [], true), undefined);
    assert.equal(seccompFilter({ type: 'Unconfined' }, host, [], false), undefined);
    assert.equal(seccompFilter({ type: 'RuntimeDefault' }, host, [], false)?.defaultAction, 'SCMP_ACT_ERRNO');
    const local = seccompFilter({ type: 'Localhost', template: { defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['mkdir'], action: 'SCMP_ACT_ERRNO' }] } }, host, [], false);
    assert.deepEqual(local, { defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['mkdir'], action: 'SCMP_ACT_ERRNO' }] });
  });
});
