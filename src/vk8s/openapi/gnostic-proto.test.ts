import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadKubernetesOpenApi } from './kubernetes-document.js';
import { RESOURCES } from '../resources.js';
import { toGnosticDocument } from './gnostic-document.js';
import { encodeGnosticDocument, loadGnosticDocumentType } from './gnostic-proto.js';
import { trimOpenApi } from './trim-openapi.js';

type Json = Record<string, unknown>;
interface Named<T = Json> {
  readonly name: string;
  readonly value: T;
}

const byName = <T>(entries: unknown, name: string): T => {
  const found = (entries as Array<Named<T>>).find((e) => e.name === name);
  assert.ok(found, name);
  return found.value;
};
const extension = (message: Json, name: string): unknown => JSON.parse(byName<{ yaml: string }>(message['vendorExtension'], name).yaml);

describe('gnostic protobuf encoding', () => {
  const type = loadGnosticDocumentType();
  const spec = trimOpenApi(loadKubernetesOpenApi(), RESOURCES);
  const bytes = encodeGnosticDocument(type, spec);
  const decoded = type.toObject(type.decode(bytes));
  const definitions = (decoded['definitions'] as { additionalProperties: Array<Named> }).additionalProperties;

  it('encodeGnosticDocument round-trips every definition and path', () => {
    assert.equal(decoded['swagger'], '2.0');
    assert.deepEqual(decoded['info'], { title: 'Kubernetes', version: 'unversioned' });
    assert.deepEqual(definitions.map((d) => d.name), Object.keys(spec.definitions));
    const paths = (decoded['paths'] as { path: Array<Named> }).path;
    assert.deepEqual(paths.map((p) => p.name), Object.keys(spec.paths));
  });

  it('encodeGnosticDocument carries schemas with properties, types, items and references', () => {
    const deployment = byName<Json>(definitions, 'io.k8s.api.apps.v1.Deployment');
    assert.deepEqual(extension(deployment, 'x-kubernetes-group-version-kind'), [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    const spec = byName<Json>((deployment['properties'] as Json)['additionalProperties'], 'spec');
    assert.equal(spec['_ref'], '#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
    const replicas = byName<Json>((byName<Json>(definitions, 'io.k8s.api.apps.v1.DeploymentSpec')['properties'] as Json)['additionalProperties'], 'replicas');
    assert.deepEqual([replicas['type'], replicas['format']], [{ value: ['integer'] }, 'int32']);
    const containers = byName<Json>((byName<Json>(definitions, 'io.k8s.api.core.v1.PodSpec')['properties'] as Json)['additionalProperties'], 'containers');
    assert.deepEqual(containers['items'], { schema: [{ _ref: '#/definitions/io.k8s.api.core.v1.Container' }] });
    assert.equal(extension(containers, 'x-kubernetes-patch-merge-key'), 'name');
    assert.equal(extension(containers, 'x-kubernetes-patch-strategy'), 'merge');
    const labels = byName<Json>((byName<Json>(definitions, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')['properties'] as Json)['additionalProperties'], 'labels');
    assert.deepEqual(labels['additionalProperties'], { schema: { type: { value: ['string'] } } });
    const ports = byName<Json>((byName<Json>(definitions, 'io.k8s.api.core.v1.ServiceSpec')['properties'] as Json)['additionalProperties'], 'ports');
    assert.deepEqual(extension(ports, 'x-kubernetes-list-map-keys'), ['port', 'protocol']);
  });

  it('encodeGnosticDocument carries the PATCH operation with its GVK and dryRun parameter', () => {
    const item = byName<Json>((decoded['paths'] as Json)['path'], '/apis/apps/v1/namespaces/{namespace}/deployments/{name}');
    const patch = item['patch'] as Json;
    assert.deepEqual(extension(patch, 'x-kubernetes-group-version-kind'), { group: 'apps', kind: 'Deployment', version: 'v1' });
    assert.equal(extension(patch, 'x-kubernetes-action'), 'patch');
    const parameters = patch['parameters'] as Array<{ parameter: Json }>;
    const query = parameters.map((p) => (p.parameter['nonBodyParameter'] as Json | undefined)?.['queryParameterSubSchema'] as Json | undefined);
    assert.ok(query.some((q) => q?.['name'] === 'dryRun' && q['in'] === 'query' && q['type'] === 'string'));
    const body = parameters.find((p) => p.parameter['bodyParameter'] !== undefined)?.parameter['bodyParameter'] as Json;
    assert.deepEqual([body['name'], body['required'], body['schema']], ['body', true, { _ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' }]);
    const path = (item['parameters'] as Array<{ parameter: Json }>).map((p) => (p.parameter['nonBodyParameter'] as Json)['pathParameterSubSchema'] as Json | undefined);
    assert.ok(path.some((p) => p?.['name'] === 'namespace' && p['required'] === true));
    const ok = byName<Json>((patch['responses'] as Json)['responseCode'], '200');
    assert.deepEqual(ok, { response: { description: 'OK', schema: { schema: { _ref: '#/definitions/io.k8s.api.apps.v1.Deployment' } } } });
  });

  it('encodeGnosticDocument carries the security definitions', () => {
    assert.deepEqual(decoded['securityDefinitions'], {
      additionalProperties: [{ name: 'BearerToken', value: { apiKeySecurity: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' } } }],
    });
    assert.deepEqual(decoded['security'], [{ additionalProperties: [{ name: 'BearerToken', value: {} }] }]);
  });

  it('toGnosticDocument maps defaults, enums, boolean additionalProperties, allOf and item tuples', () => {
    const document = toGnosticDocument({
      swagger: '2.0',
      definitions: {
        x: { type: ['object', 'null'], default: { a: 1 }, enum: ['a', 'b'], additionalProperties: false, allOf: [{ $ref: '#/definitions/y' }], items: [{ type: 'string' }, { type: 'integer' }], 'x-custom': true },
      },
      paths: { '/p': { get: { parameters: [{ $ref: '#/parameters/q' }, { name: 'h', in: 'header', type: 'array', items: { type: 'string', items: { type: 'string' } } }], responses: { default: { $ref: '#/responses/r' } } } } },
    });
    assert.equal(type.verify(document), null);
    const x = byName<Json>((document['definitions'] as Json)['additionalProperties'], 'x');
    assert.deepEqual(x, {
      default: { yaml: '{"a":1}' },
      enum: [{ yaml: '"a"' }, { yaml: '"b"' }],
      vendorExtension: [{ name: 'x-custom', value: { yaml: 'true' } }],
      type: { value: ['object', 'null'] },
      items: { schema: [{ type: { value: ['string'] } }, { type: { value: ['integer'] } }] },
      additionalProperties: { boolean: false },
      allOf: [{ _ref: '#/definitions/y' }],
    });
    const get = byName<Json>((document['paths'] as Json)['path'], '/p')['get'] as Json;
    assert.deepEqual(get['parameters'], [
      { jsonReference: { _ref: '#/parameters/q' } },
      { parameter: { nonBodyParameter: { headerParameterSubSchema: { name: 'h', in: 'header', type: 'array', items: { type: 'string', items: { type: 'string' } } } } } },
    ]);
    assert.deepEqual(get['responses'], { responseCode: [{ name: 'default', value: { jsonReference: { _ref: '#/responses/r' } } }], vendorExtension: [] });
    const decodedX = byName<Json>(((type.toObject(type.decode(type.encode(type.fromObject(document)).finish())))['definitions'] as Json)['additionalProperties'], 'x');
    assert.deepEqual(decodedX['additionalProperties'], { boolean: false });
  });
});
