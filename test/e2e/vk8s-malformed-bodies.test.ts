import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';

// Issue 20, defect 5: bodies that made the vK8s API answer 500 (or die) answer a 4xx and store nothing.
const CLUSTER = '/api/vk8s/namespaces/default/malformed';
const CM = `${CLUSTER}/api/v1/namespaces/default/configmaps`;
const DEPLOY = `${CLUSTER}/apis/apps/v1/namespaces/default/deployments`;

interface Status {
  reason?: string;
  code?: number;
  message?: string;
  details?: { causes?: Array<{ field: string; message: string }> };
}

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nestedObject = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** A "billion laughs" document: nine levels of nine aliases each, 9^9 strings if expanded. */
const ALIAS_BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...'bcdefghi'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`)].join('\n');

describe('vK8s bodies that are the client\'s mistake', () => {
  let h: ConfigHarness;
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { a: '1' } };
  before(async () => {
    h = await startConfigHarness();
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'malformed' }, spec: {} } })).status, 200);
    assert.equal((await h.call('POST', CM, { body: configMap })).status, 201);
  });
  after(() => h?.close());

  const send = async (method: string, path: string, contentType: string, raw: string): Promise<{ status: number; body: Status }> => {
    const response = await h.call(method, path, { raw, headers: { 'content-type': contentType } });
    return { status: response.status, body: response.json<Status>() };
  };
  const names = async (path: string): Promise<string[]> => (await h.call('GET', path)).json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name);
  const keptUnchanged = async (): Promise<void> => {
    const kept = (await h.call('GET', `${CM}/kept`)).json<{ data: Record<string, string>; metadata: { annotations?: unknown } }>();
    assert.deepEqual([kept.data, kept.metadata.annotations], [{ a: '1' }, undefined]);
    assert.deepEqual(await names(CM), ['kept']);
  };

  it('server-side apply with values of the wrong type is 422 Invalid naming the field, and creates nothing', async () => {
    const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): string =>
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...metadata }, spec });
    const cases: Array<[string, string, string]> = [
      [deployment({ replicas: 'three' }), 'spec.replicas', 'expected numeric (int or float), got "three"'],
      [deployment({}, { labels: 5 }), 'metadata.labels', 'expected map, got 5'],
      [deployment({ template: { spec: { containers: {} } } }), 'spec.template.spec.containers', 'expected list, got {}'],
    ];
    for (const [body, field, message] of cases) {
      for (const contentType of ['application/apply-patch+yaml']) {
        const answer = await send('PATCH', `${DEPLOY}/web?fieldManager=fuzz`, contentType, body);
        assert.equal(answer.status, 422, body);
        assert.equal(answer.body.reason, 'Invalid');
        assert.deepEqual(answer.body.details?.causes?.map((c) => [c.field, c.message]), [[field, message]]);
        assert.equal(answer.body.message, `Deployment.apps "web" is invalid: ${field}: ${message}`);
      }
    }
    assert.equal((await h.call('GET', `${DEPLOY}/web`)).status, 404);
  });

  it('server-side apply to a stored StatefulSet whose template 1.17 let through untyped is 409 Conflict, and changes nothing', async () => {
    const STS = `${CLUSTER}/apis/apps/v1/namespaces/default/statefulsets`;
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }, { image: 'j' }] } };
    const stored = await h.call('POST', STS, { body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'loose' }, spec: { serviceName: 'loose', selector: { matchLabels: { app: 'a' } }, template } } });
    assert.equal(stored.status, 201, 'kube 1.17 does not validate a StatefulSet\'s pod template');
    const applied = await send('PATCH', `${STS}/loose?fieldManager=fuzz`, 'application/apply-patch+yaml', JSON.stringify({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'loose' }, spec: { replicas: 3 } }));
    assert.deepEqual([applied.status, applied.body.reason], [409, 'Conflict'], applied.body.message);
    assert.deepEqual(applied.body.details?.causes?.map((c) => c.field), ['spec.template.spec.containers']);
    // The StatefulSet controller writes its status meanwhile; what the client wrote is unchanged.
    const specOf = (body: string): unknown => (JSON.parse(body) as { spec: unknown }).spec;
    assert.deepEqual(specOf((await h.call('GET', `${STS}/loose`)).body), specOf(stored.body));
  });

  it('patches and bodies nested 100,000 levels deep are 400 BadRequest and change nothing', async () => {
    const deep = nestedObject(100_000);
    const attempts: Array<[string, string, string, string]> = [
      ['PATCH', `${CM}/kept`, 'application/merge-patch+json', `{"metadata":{"annotations":${deep}}}`],
      ['PATCH', `${CM}/kept`, 'application/strategic-merge-patch+json', `{"data":${deep}}`],
      ['PATCH', `${CM}/kept`, 'application/json-patch+json', `[{"op":"add","path":"/metadata/annotations","value":${deep}}]`],
      ['PATCH', `${CM}/kept?fieldManager=fuzz`, 'application/apply-patch+yaml', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kept"},"data":${deep}}`],
      ['POST', CM, 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${deep}}`],
      ['PUT', `${CM}/kept`, 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kept"},"data":${deep}}`],
      ['POST', CM, 'application/yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ${'['.repeat(100_000)}`],
      ['POST', CM, 'application/yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ${nestedObject(101)}`],
    ];
    for (const [method, path, contentType, body] of attempts) {
      const answer = await send(method, path, contentType, body);
      assert.deepEqual([answer.status, answer.body.reason], [400, 'BadRequest'], `${method} ${contentType}: ${answer.body.message?.slice(0, 200)}`);
    }
    await keptUnchanged();
    // 100 levels is within the limit (a ConfigMap's data must still be strings: the decoder's 400 names the field).
    const deepest = await send('POST', CM, 'application/json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","annotations":{"a":"b"}},"data":{"a":"b"},"x":${nestedObject(97)}}`);
    assert.equal(deepest.status, 201, deepest.body.message);
    assert.equal((await h.call('DELETE', `${CM}/deep`)).status, 200);
  });

  it('a YAML alias bomb is 400 BadRequest as a body and as an apply patch, and creates nothing', async () => {
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: laughs}\n${ALIAS_BOMB}\n`;
    const created = await send('POST', CM, 'application/yaml', body);
    assert.deepEqual([created.status, created.body.reason], [400, 'BadRequest'], created.body.message);
    assert.match(created.body.message ?? '', /Excessive alias count/);
    const applied = await send('PATCH', `${CM}/laughs?fieldManager=fuzz`, 'application/apply-patch+yaml', body);
    assert.deepEqual([applied.status, applied.body.reason], [400, 'BadRequest'], applied.body.message);
    await keptUnchanged();
  });
});
