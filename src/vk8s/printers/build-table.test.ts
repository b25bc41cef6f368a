import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { buildTable, parseIncludeObject } from './build-table.js';
import { podPrinter } from './pod-printer.js';
import type { TablePrinter } from './table-printer.js';
import { MINUTE, NOW, meta, namedDoc, object } from './testing/fixtures.js';

const printer: TablePrinter = podPrinter(namedDoc);
const running = object('v1', 'Pod', meta('web-0', 5 * MINUTE, { labels: { app: 'web' } }), {
  spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'node-1' },
  status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: { running: {} } }] },
});
const done = object('v1', 'Pod', meta('job-x', 5 * MINUTE), { spec: { containers: [{ name: 'app' }] }, status: { phase: 'Succeeded' } });

type Row = { cells: unknown[]; conditions?: unknown[]; object: unknown };
const rowsOf = (table: Record<string, unknown>): Row[] => table['rows'] as Row[];

describe('buildTable', () => {
  it('buildTable builds a v1 Table with list metadata, all columns and PartialObjectMetadata rows', () => {
    const table = buildTable(printer, [running], { now: NOW, includeObject: 'Metadata', listMeta: { resourceVersion: '1030', continue: 'abc', selfLink: '/api/v1/namespaces/default/pods' } });
    assert.deepEqual(Object.keys(table), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    assert.equal(table['kind'], 'Table');
    assert.equal(table['apiVersion'], 'meta.k8s.io/v1');
    assert.deepEqual(table['metadata'], { selfLink: '/api/v1/namespaces/default/pods', resourceVersion: '1030', continue: 'abc' });
    const columns = table['columnDefinitions'] as Array<Record<string, unknown>>;
    assert.deepEqual(Object.keys(columns[0] ?? {}), ['name', 'type', 'format', 'description', 'priority']);
    assert.deepEqual(columns.map((c) => c['name']), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    const [row] = rowsOf(table);
    assert.deepEqual(row, {
      cells: ['web-0', '1/1', 'Running', 0, '5m', '10.0.0.5', 'node-1', '<none>', '<none>'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: running.metadata },
    });
    assert.equal(row?.cells.length, columns.length);
  });

  it('buildTable carries the row conditions of completed pods', () => {
    const [, completed] = rowsOf(buildTable(printer, [running, done], { now: NOW, includeObject: 'Metadata' }));
    assert.deepEqual(completed?.conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  });

  it('buildTable puts the whole object in rows for Object and null for None', () => {
    assert.deepEqual(rowsOf(buildTable(printer, [running], { now: NOW, includeObject: 'Object' }))[0]?.object, running);
    const none = rowsOf(buildTable(printer, [running], { now: NOW, includeObject: 'None' }))[0];
    assert.equal(none?.object, null);
    assert.ok(none !== undefined && 'object' in none, 'Go encodes the empty RawExtension as null');
  });

  it('buildTable sends null column definitions with noHeaders, as a Table watch event after the first', () => {
    const table = buildTable(printer, [running], { now: NOW, includeObject: 'Metadata', noHeaders: true });
    assert.equal(table['columnDefinitions'], null);
    assert.equal(rowsOf(table).length, 1);
  });

  it('buildTable sends empty metadata and rows for an empty list, and follows the accepted version', () => {
    const table = buildTable(printer, [], { now: NOW, includeObject: 'Metadata', version: 'v1beta1' });
    assert.equal(table['apiVersion'], 'meta.k8s.io/v1beta1');
    assert.deepEqual(table['metadata'], {});
    assert.deepEqual(table['rows'], []);
    const rows = rowsOf(buildTable(printer, [running], { now: NOW, includeObject: 'Metadata', version: 'v1beta1', listMeta: { remainingItemCount: 0, resourceVersion: '' } }));
    assert.deepEqual((rows[0]?.object as { apiVersion: string }).apiVersion, 'meta.k8s.io/v1beta1');
  });

  it('buildTable keeps remainingItemCount, even zero', () => {
    const table = buildTable(printer, [running], { now: NOW, includeObject: 'None', listMeta: { resourceVersion: '7', continue: 'c', remainingItemCount: 0 } });
    assert.deepEqual(table['metadata'], { resourceVersion: '7', continue: 'c', remainingItemCount: 0 });
  });

  it('buildTable serializes to the JSON kubectl decodes', () => {
    const json = JSON.parse(JSON.stringify(buildTable(printer, [running], { now: NOW, includeObject: 'Metadata' }))) as Record<string, unknown>;
    const rows = json['rows'] as Array<{ object: KubeObject }>;
    assert.equal(rows[0]?.object.metadata.namespace, 'default');
    assert.deepEqual(rows[0]?.object.metadata.labels, { app: 'web' });
  });
});

describe('parseIncludeObject', () => {
  it('parseIncludeObject defaults to Metadata and rejects unknown values', () => {
    assert.equal(parseIncludeObject(undefined), 'Metadata');
    assert.equal(parseIncludeObject(''), 'Metadata');
    assert.equal(parseIncludeObject('Object'), 'Object');
    assert.equal(parseIncludeObject('None'), 'None');
    assert.equal(parseIncludeObject('object'), undefined);
  });
});
