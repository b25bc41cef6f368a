import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configMapPrinter, secretPrinter, serviceAccountPrinter } from './config-printers.js';
import { DAY, MINUTE, NOW, meta, namedDoc, object } from './testing/fixtures.js';

describe('secret printer', () => {
  const printer = secretPrinter(namedDoc);

  it('secret printer prints the type and the number of keys', () => {
    const s = object('v1', 'Secret', meta('default-token-abcde', 20 * DAY), { type: 'kubernetes.io/service-account-token', data: { 'ca.crt': 'LS0t', namespace: 'ZGVmYXVsdA==', token: 'ZXlK' } });
    assert.deepEqual(printer.cells(s, NOW), ['default-token-abcde', 'kubernetes.io/service-account-token', 3, '20d']);
  });

  it('secret printer counts stringData keys as kube merges them into data, and reads an absent type as Opaque', () => {
    const s = object('v1', 'Secret', meta('creds', MINUTE), { type: 'Opaque', data: { user: 'YQ==' }, stringData: { user: 'b', password: 'c' } });
    assert.equal(printer.cells(s, NOW)[2], 2);
    assert.deepEqual(printer.cells(object('v1', 'Secret', meta('empty', MINUTE), {}), NOW), ['empty', 'Opaque', 0, '60s']);
    assert.deepEqual(printer.columns.map((c) => [c.name, c.type, c.description]), [['Name', 'string', 'ObjectMeta.name'], ['Type', 'string', 'Secret.type'], ['Data', 'string', 'Secret.data'], ['Age', 'string', 'ObjectMeta.creationTimestamp']]);
  });
});

describe('config map printer', () => {
  it('config map printer counts data and binaryData keys', () => {
    const printer = configMapPrinter(namedDoc);
    const cm = object('v1', 'ConfigMap', meta('app-config', 5 * MINUTE), { data: { 'app.properties': 'a=b', mode: 'fast' }, binaryData: { 'logo.png': 'iVBORw0KGgo=' } });
    assert.deepEqual(printer.cells(cm, NOW), ['app-config', 3, '5m']);
    assert.deepEqual(printer.cells(object('v1', 'ConfigMap', meta('empty', MINUTE), {}), NOW), ['empty', 0, '60s']);
    assert.deepEqual(printer.columns.map((c) => [c.name, c.description]), [['Name', 'ObjectMeta.name'], ['Data', 'ConfigMap.data'], ['Age', 'ObjectMeta.creationTimestamp']]);
  });
});

describe('service account printer', () => {
  it('service account printer counts secret references', () => {
    const printer = serviceAccountPrinter(namedDoc);
    const sa = object('v1', 'ServiceAccount', meta('default', 20 * DAY), { secrets: [{ name: 'default-token-abcde' }] });
    assert.deepEqual(printer.cells(sa, NOW), ['default', 1, '20d']);
    assert.deepEqual(printer.cells(object('v1', 'ServiceAccount', meta('builder', MINUTE), {}), NOW), ['builder', 0, '60s']);
    assert.deepEqual(printer.columns.map((c) => [c.name, c.description]), [['Name', 'ObjectMeta.name'], ['Secrets', 'ServiceAccount.secrets'], ['Age', 'ObjectMeta.creationTimestamp']]);
  });
});
