import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadKubernetesOpenApi } from './kubernetes-document.js';
import { RESOURCES } from '../resources.js';
import { parseApiPath } from './api-path.js';
import { definitionRefs, reachableDefinitions } from './reachable-definitions.js';
import { operationVerb, servedVerbs } from './served-paths.js';
import { trimOpenApi } from './trim-openapi.js';

type Json = Record<string, unknown>;

describe('trimOpenApi', () => {
  const spec = trimOpenApi(loadKubernetesOpenApi(), RESOURCES);
  const definitions = Object.keys(spec.definitions);

  it('trimOpenApi keeps the served kinds, their Lists and the types their operations speak', () => {
    for (const name of [
      'io.k8s.api.apps.v1.Deployment',
      'io.k8s.api.apps.v1.DeploymentList',
      'io.k8s.api.batch.v1beta1.CronJob',
      'io.k8s.api.core.v1.Pod',
      'io.k8s.api.core.v1.PersistentVolume',
      'io.k8s.api.autoscaling.v1.Scale',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
      'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
      'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.api.resource.Quantity',
    ]) {
      assert.ok(definitions.includes(name), name);
    }
  });

  it('trimOpenApi drops kinds the virtual cluster does not serve', () => {
    for (const name of ['io.k8s.api.networking.v1beta1.Ingress', 'io.k8s.api.extensions.v1beta1.Ingress', 'io.k8s.api.apps.v1.DaemonSet', 'io.k8s.api.core.v1.ReplicationController', 'io.k8s.api.rbac.v1.Role', 'io.k8s.api.apps.v1beta1.Scale', 'io.k8s.api.core.v1.Binding']) {
      assert.ok(!definitions.includes(name), name);
    }
    assert.ok(!Object.keys(spec.paths).some((p) => p.includes('ingresses') || p.includes('daemonsets') || p.includes('/proxy')));
    assert.ok(definitions.length < 250, `${definitions.length} definitions`);
  });

  it('trimOpenApi leaves every reference resolvable', () => {
    for (const ref of definitionRefs([spec.paths, spec.definitions])) assert.ok(definitions.includes(ref), ref);
  });

  it('trimOpenApi keeps only operations the resources table serves', () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      const parsed = parseApiPath(path);
      assert.ok(parsed, path);
      const verbs = servedVerbs(parsed, RESOURCES);
      const operations = Object.entries(item).filter(([key]) => key !== 'parameters');
      assert.ok(operations.length > 0, path);
      for (const [method, operation] of operations) {
        const verb = operationVerb(method, (operation as Json)['x-kubernetes-action']);
        assert.ok(verb !== undefined && verbs.includes(verb), `${method} ${path}`);
      }
    }
    assert.deepEqual(Object.keys(spec.paths['/api/v1/namespaces/{namespace}/pods/{name}'] ?? {}).sort(), ['get', 'parameters']);
    assert.deepEqual(Object.keys(spec.paths['/api/v1/namespaces/{namespace}/services'] ?? {}).sort(), ['get', 'parameters', 'post']);
    assert.ok(!('/api/v1/pods' in spec.paths));
    assert.ok('/api/v1/serviceaccounts' in spec.paths);
  });

  it('trimOpenApi keeps the PATCH operation kubectl diff and server dry-run look for', () => {
    const patch = spec.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.['patch'] as Json;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
    assert.ok((patch['parameters'] as Json[]).some((p) => p['name'] === 'dryRun' && p['in'] === 'query'));
  });

  it('trimOpenApi keeps info and the security definitions', () => {
    assert.equal(spec.swagger, '2.0');
    assert.deepEqual(spec.info, { title: 'Kubernetes', version: 'unversioned' });
    assert.deepEqual(spec.security, [{ BearerToken: [] }]);
    assert.equal((spec.securityDefinitions?.['BearerToken'] as Json)['type'], 'apiKey');
  });

  it('reachableDefinitions follows references transitively and ignores dangling ones', () => {
    const defs = { a: { $ref: '#/definitions/b' }, b: { properties: { c: { items: { $ref: '#/definitions/c' } } } }, c: {}, d: {} };
    assert.deepEqual(Object.keys(reachableDefinitions(defs, ['a', 'missing'])), ['a', 'b', 'c']);
  });
});
