import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../server/testing/config-harness.js';

interface Case {
  readonly what: string;
  readonly method: string;
  readonly path: string;
  readonly raw?: string;
  readonly body?: unknown;
  readonly status: number;
  readonly code: number;
  readonly message: RegExp;
}

const FC = '/api/config/namespaces/default/forwarding_classs';
const fc = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'bad' }): unknown => ({ metadata, spec });

/** Bad input of every sort: the API's own error shape, the status of its code, and nothing stored. */
const CASES: readonly Case[] = [
  { what: 'invalid JSON', method: 'POST', path: FC, raw: '{"metadata":', status: 400, code: 3, message: /request body is not valid JSON/ },
  { what: 'a JSON array', method: 'POST', path: FC, raw: '[]', status: 400, code: 3, message: /request body must be a JSON object/ },
  { what: 'unknown top-level field', method: 'POST', path: FC, body: { metadata: { name: 'x' }, spec: {}, extra: 1 }, status: 400, code: 3, message: /^extra: unknown field$/ },
  { what: 'unknown metadata field', method: 'POST', path: FC, body: { metadata: { name: 'x', owner: 'me' }, spec: {} }, status: 400, code: 3, message: /metadata.owner: unknown field/ },
  { what: 'unknown spec field', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1', colour: 'red' }), status: 400, code: 3, message: /spec.colour: unknown field/ },
  { what: 'missing name', method: 'POST', path: FC, body: { metadata: {}, spec: {} }, status: 400, code: 3, message: /metadata.name: is required/ },
  { what: 'name not a DNS-1035 label', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1' }, { name: '1abc' }), status: 400, code: 3, message: /metadata.name: "1abc": a DNS-1035 label/ },
  { what: 'wrong type', method: 'POST', path: FC, body: fc({ interface_group: 7 }), status: 400, code: 3, message: /spec.interface_group: must be string/ },
  { what: 'bad enum', method: 'POST', path: FC, body: fc({ interface_group: 'GROUP1' }), status: 400, code: 3, message: /spec.interface_group: must be one of ANY_AVAILABLE_INTERFACE, INTERFACE_GROUP1/ },
  { what: 'required field missing', method: 'POST', path: FC, body: fc({}), status: 400, code: 3, message: /spec.interface_group: is required/ },
  { what: 'two members of a one-of', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1', no_marking: {}, tos_value: 4 }), status: 400, code: 3, message: /only one of no_marking, dscp, tos_value may be set, found no_marking and tos_value/ },
  { what: 'tos out of range', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1', tos_value: 256 }), status: 400, code: 3, message: /spec.tos_value: must be <= 255/ },
  { what: 'namespace mismatch', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1' }, { name: 'x', namespace: 'shared' }), status: 400, code: 3, message: /"shared" does not match the namespace "default" in the path/ },
  { what: 'labels with a bad key', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1' }, { name: 'x', labels: { 'bad key': 'v' } }), status: 400, code: 3, message: /metadata.labels: key "bad key"/ },
  { what: 'label value not a string', method: 'POST', path: FC, body: fc({ interface_group: 'INTERFACE_GROUP1' }, { name: 'x', labels: { a: 1 } }), status: 400, code: 3, message: /metadata.labels.a: must be a string/ },
  { what: 'unknown kind', method: 'GET', path: '/api/config/namespaces/default/widgets', status: 404, code: 5, message: /unknown kind "widgets"/ },
  { what: 'unknown path', method: 'GET', path: '/api/config/nothing/here', status: 404, code: 5, message: /no configuration API path \/api\/config\/nothing\/here/ },
  { what: 'kind under the wrong slug', method: 'GET', path: '/api/config/namespaces/default/secret_policys', status: 404, code: 5, message: /unknown kind/ },
  { what: 'missing object', method: 'GET', path: `${FC}/ghost`, status: 404, code: 5, message: /^forwarding_class ghost does not exist in namespace default$/ },
  { what: 'missing namespace', method: 'GET', path: '/api/config/namespaces/ghost-ns/policers', status: 404, code: 5, message: /namespace ghost-ns does not exist/ },
  { what: 'wrong method', method: 'PATCH', path: `${FC}/x`, status: 405, code: 12, message: /Method Not Allowed/ },
  { what: 'delete of a collection', method: 'DELETE', path: FC, status: 405, code: 12, message: /Method Not Allowed/ },
  { what: 'create of a site', method: 'POST', path: '/api/config/namespaces/system/sites', body: { metadata: { name: 's' }, spec: { site_type: 'CUSTOMER_EDGE' } }, status: 405, code: 12, message: /appear when a site registers/ },
  { what: 'bad response_format', method: 'GET', path: `${FC}/x?response_format=GET_RSP_FORMAT_NOPE`, status: 400, code: 3, message: /response_format/ },
  { what: 'bad label_filter', method: 'GET', path: `${FC}?label_filter=a%20in%20(`, status: 400, code: 3, message: /label_filter: Cannot parse label selector "a in \(": missing closing parenthesis/ },
  { what: 'delete body with unknown field', method: 'DELETE', path: `${FC}/x`, body: { force: true }, status: 400, code: 3, message: /force: unknown field/ },
];

describe('configuration API errors', () => {
  let h: ConfigHarness;
  before(async () => {
    h = await startConfigHarness({ bodyLimit: 64 * 1024 });
  });
  after(() => h?.close());

  for (const c of CASES) {
    it(`${c.what} → ${c.status} code ${c.code}, nothing stored`, async () => {
      const before = await h.controlPlane.store.currentRevision();
      const res = await h.call(c.method, c.path, { ...(c.raw === undefined ? {} : { raw: c.raw }), ...(c.body === undefined ? {} : { body: c.body }) });
      assert.equal(res.status, c.status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = res.json<{ code: number; details: unknown[]; message: string }>();
      assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message']);
      assert.equal(body.code, c.code);
      assert.deepEqual(body.details, []);
      assert.match(body.message, c.message);
      assert.equal(await h.controlPlane.store.currentRevision(), before, 'a refused request wrote to the store');
    });
  }

  it('an oversize body (limit configurable) → 400 naming the limit, nothing stored', async () => {
    const before = await h.controlPlane.store.currentRevision();
    const big = JSON.stringify({ metadata: { name: 'big', description: 'x'.repeat(70 * 1024) }, spec: { interface_group: 'INTERFACE_GROUP1' } });
    const res = await h.call('POST', FC, { raw: big });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json(), { code: 3, details: [], message: 'request body is larger than the limit of 65536 bytes' });
    assert.equal(await h.controlPlane.store.currentRevision(), before);
  });

  it('a create without Content-Type is read as JSON', async () => {
    const res = await h.call('POST', '/api/config/namespaces/default/policers', {
      raw: '{"metadata":{"name":"no-ct"},"spec":{"committed_information_rate":1,"burst_size":1}}',
      headers: { 'content-type': '' },
    });
    assert.equal(res.status, 200, res.body);
  });

  it('creating an existing object → 409 code 6; a stale resource_version → 409 code 10; a renamed replace → 400', async () => {
    const body = { metadata: { name: 'dup' }, spec: { committed_information_rate: 1, burst_size: 1 } };
    assert.equal((await h.call('POST', '/api/config/namespaces/default/policers', { body })).status, 200);
    const again = await h.call('POST', '/api/config/namespaces/default/policers', { body });
    assert.equal(again.status, 409);
    assert.equal(again.json()['code'], 6);
    assert.match(String(again.json()['message']), /^Object already exists/);
    const stale = await h.call('PUT', '/api/config/namespaces/default/policers/dup', { body: { ...body, resource_version: '1' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json()['code'], 10);
    const renamed = await h.call('PUT', '/api/config/namespaces/default/policers/dup', { body: { ...body, metadata: { name: 'other' } } });
    assert.equal(renamed.status, 400);
    assert.match(String(renamed.json()['message']), /names cannot be changed/);
  });

  it('unauthenticated requests → 401 code 16', async () => {
    for (const token of [null, 'ep1.not-a-real-token', 'garbage']) {
      const res = await h.call('GET', '/api/config/namespaces/default/policers', { token });
      assert.equal(res.status, 401);
      assert.equal(res.json()['code'], 16);
    }
    const badScheme = await h.call('GET', '/api/config/namespaces/default/policers', { token: null, headers: { authorization: 'Basic YTpi' } });
    assert.match(String(badScheme.json()['message']), /must be "APIToken <token>"/);
  });
});

describe('configuration API authentication', () => {
  let h: ConfigHarness;
  before(async () => {
    h = await startConfigHarness();
  });
  after(() => h?.close());

  it('every path answers 401 without a credential, the OpenAPI document included', async () => {
    for (const path of ['/api/config/openapi.json', '/api/web/namespaces', '/api/web/namespaces/system/api_credentials', '/api/config/namespaces/default/policers/x']) {
      const res = await h.call('GET', path, { token: null });
      assert.equal(res.status, 401, path);
      assert.equal(res.json()['code'], 16, path);
    }
    const doc = (await h.call('GET', '/api/config/openapi.json')).json<{ openapi: string }>();
    assert.equal(doc.openapi, '3.0.3');
  });
});
