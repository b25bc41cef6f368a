import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { validateFlavorAnnotations } from './flavor-admission.js';

const allowed = ['tiny', 'medium', 'large', 'fat'];
const podSpec = { containers: [{ name: 'web' }, { name: 'side' }], initContainers: [{ name: 'init' }] };
const meta = (annotations?: Record<string, string>): KubeObject['metadata'] => ({ name: 'w', ...(annotations === undefined ? {} : { annotations }) });
const deployment = (annotations?: Record<string, string>): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(annotations), spec: { template: { spec: podSpec } } });
const pod = (annotations?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta(annotations), spec: podSpec });
const cronJob = (annotations?: Record<string, string>, jobAnnotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'batch/v1beta1',
  kind: 'CronJob',
  metadata: meta(annotations),
  spec: { jobTemplate: { metadata: { annotations: jobAnnotations }, spec: { template: { spec: podSpec } } } },
});
const lines = (object: KubeObject, old?: KubeObject): string[] =>
  validateFlavorAnnotations(object, { allowed, ...(old === undefined ? {} : { old }) }).map((c) => `${c.reason} ${c.field}: ${c.message}`);
const unsupported = (field: string, value: string): string =>
  `FieldValueNotSupported ${field}: Unsupported value: ${JSON.stringify(value)}: supported values: "tiny", "medium", "large", "fat"`;

describe('flavor admission rules', () => {
  const cases: ReadonlyArray<{ name: string; object: KubeObject; old?: KubeObject; expected: string[] }> = [
    { name: 'no annotation', object: deployment(), expected: [] },
    { name: 'valid values', object: deployment({ 'svc.io/workload-flavor': 'medium', 'svc.io/workload-flavor-side': 'fat', 'svc.io/workload-flavor-init': 'large' }), expected: [] },
    { name: 'other annotations are not looked at', object: deployment({ 'svc.io/workload-flavors': 'x', 'svc.io/sites': 'bad' }), expected: [] },
    { name: 'an unknown value', object: deployment({ 'svc.io/workload-flavor': 'huge' }), expected: [unsupported('metadata.annotations[svc.io/workload-flavor]', 'huge')] },
    { name: 'an unknown container value', object: deployment({ 'svc.io/workload-flavor-web': 'Large' }), expected: [unsupported('metadata.annotations[svc.io/workload-flavor-web]', 'Large')] },
    {
      name: 'a container the template lacks',
      object: deployment({ 'svc.io/workload-flavor-db': 'large' }),
      expected: ['FieldValueInvalid metadata.annotations[svc.io/workload-flavor-db]: Invalid value: "large": the pod template has no container named "db": it has "web", "side", "init"'],
    },
    {
      name: 'both problems of one annotation',
      object: pod({ 'svc.io/workload-flavor-db': 'huge' }),
      expected: [
        unsupported('metadata.annotations[svc.io/workload-flavor-db]', 'huge'),
        'FieldValueInvalid metadata.annotations[svc.io/workload-flavor-db]: Invalid value: "huge": the pod template has no container named "db": it has "web", "side", "init"',
      ],
    },
    { name: 'a pod is checked against its own containers', object: pod({ 'svc.io/workload-flavor-side': 'tiny' }), expected: [] },
    { name: 'a cron job template annotation is checked', object: cronJob(undefined, { 'svc.io/workload-flavor': 'huge' }), expected: [unsupported('spec.jobTemplate.metadata.annotations[svc.io/workload-flavor]', 'huge')] },
    { name: 'a cron job own annotation is checked', object: cronJob({ 'svc.io/workload-flavor-web': 'fat' }), expected: [] },
    { name: 'an unchanged value passes on update', object: deployment({ 'svc.io/workload-flavor': 'deleted-since' }), old: deployment({ 'svc.io/workload-flavor': 'deleted-since' }), expected: [] },
    { name: 'a changed value is checked on update', object: deployment({ 'svc.io/workload-flavor': 'huge' }), old: deployment({ 'svc.io/workload-flavor': 'tiny' }), expected: [unsupported('metadata.annotations[svc.io/workload-flavor]', 'huge')] },
    {
      name: 'an unchanged annotation whose container was removed is refused on update',
      object: { ...deployment({ 'svc.io/workload-flavor-side': 'fat' }), spec: { template: { spec: { containers: [{ name: 'web' }] } } } },
      old: deployment({ 'svc.io/workload-flavor-side': 'fat' }),
      expected: ['FieldValueInvalid metadata.annotations[svc.io/workload-flavor-side]: Invalid value: "fat": the pod template has no container named "side": it has "web"'],
    },
    { name: 'kinds without pods are not checked', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ 'svc.io/workload-flavor': 'huge' }) }, expected: [] },
  ];
  for (const c of cases) {
    it(`flavor admission: ${c.name}`, () => {
      assert.deepEqual(lines(c.object, c.old), c.expected);
    });
  }
});
