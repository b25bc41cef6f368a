import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { RESOURCES } from '../resources.js';
import { printerFor } from './printer-for.js';
import { NOW } from './testing/fixtures.js';

const resource = (group: string, plural: string): { group: string; resource: string } => ({ group, resource: plural });

describe('printerFor', () => {
  it('printerFor has kube 1.17 columns for every served resource', () => {
    const expected: Record<string, string[]> = {
      deployments: ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*'],
      replicasets: ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers*', 'Images*', 'Selector*'],
      statefulsets: ['Name', 'Ready', 'Age', 'Containers*', 'Images*'],
      jobs: ['Name', 'Completions', 'Duration', 'Age', 'Containers*', 'Images*', 'Selector*'],
      cronjobs: ['Name', 'Schedule', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers*', 'Images*', 'Selector*'],
      pods: ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP*', 'Node*', 'Nominated Node*', 'Readiness Gates*'],
      services: ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*'],
      endpoints: ['Name', 'Endpoints', 'Age'],
      secrets: ['Name', 'Type', 'Data', 'Age'],
      configmaps: ['Name', 'Data', 'Age'],
      persistentvolumeclaims: ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'Age', 'VolumeMode*'],
      serviceaccounts: ['Name', 'Secrets', 'Age'],
      events: ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'],
      nodes: ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP*', 'External-IP*', 'OS-Image*', 'Kernel-Version*', 'Container-Runtime*'],
      namespaces: ['Name', 'Status', 'Age'],
      persistentvolumes: ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'Reason', 'Age', 'VolumeMode*'],
    };
    assert.equal(RESOURCES.length, Object.keys(expected).length);
    for (const r of RESOURCES) {
      const columns = printerFor(r).columns.map((c) => `${c.name}${c.priority > 0 ? '*' : ''}`);
      assert.deepEqual(columns, expected[r.resource], r.resource);
    }
  });

  it('printerFor documents every column from the 1.17 API definitions', () => {
    for (const r of RESOURCES) {
      for (const c of printerFor(r).columns) assert.notEqual(c.description, '', `${r.resource} ${c.name}`);
    }
    const pods = printerFor(resource('', 'pods')).columns;
    assert.equal(pods[0]?.description, 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names');
    assert.match(pods[4]?.description ?? '', /^CreationTimestamp is a timestamp representing the server time when this object was created\..*\n\nPopulated by the system\. Read-only\. Null for lists\./s);
    assert.equal(pods[5]?.description, 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.');
    // Deployments are documented from extensions/v1beta1, whose selector text lacks apps/v1's last sentence.
    const selector = printerFor(resource('apps', 'deployments')).columns.find((c) => c.name === 'Selector');
    assert.equal(selector?.description, 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.');
  });

  it('printerFor gives one cell per column for every kind, even for a bare object', () => {
    for (const r of RESOURCES) {
      const printer = printerFor(r);
      const bare: KubeObject = { apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`, kind: r.kind, metadata: { name: 'x' } };
      const cells = printer.cells(bare, NOW);
      assert.equal(cells.length, printer.columns.length, r.resource);
      for (const cell of cells) assert.ok(['string', 'number', 'boolean'].includes(typeof cell), `${r.resource}: ${String(cell)}`);
    }
  });

  it('printerFor falls back to Name and Age', () => {
    const printer = printerFor(resource('example.com', 'widgets'));
    assert.deepEqual(printer.columns.map((c) => [c.name, c.type, c.format, c.priority]), [['Name', 'string', 'name', 0], ['Age', 'string', '', 0]]);
    assert.match(printer.columns[1]?.description ?? '', /^CreationTimestamp/);
    const widget: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', creationTimestamp: '2020-06-01T11:59:00Z' } };
    assert.deepEqual(printer.cells(widget, NOW), ['w', '60s']);
  });
});
