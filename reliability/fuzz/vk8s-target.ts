import fc from 'fast-check';
import { FUZZ_CLUSTER, type FuzzEnvironment } from './fuzz-environment.js';
import { type FuzzAnswer, send } from './fuzz-request.js';
import type { FuzzTarget } from './fuzz-run.js';
import { type Query, queryOf, queryString, VK8S_QUERY } from './fuzz-query.js';
import { encode, encoding, type EncodingChoice, FRESH_NAME, mutated, oddJson, oddString } from './fuzz-values.js';

interface Resource {
  readonly path: string;
  readonly template: unknown;
}

const container = { name: 'c', image: 'nginx:1.17', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }], resources: { limits: { cpu: '1', memory: '64Mi' } } };
const podSpec = { containers: [container], restartPolicy: 'Always' };
const meta = { name: FRESH_NAME, labels: { app: 'fuzz' }, annotations: { note: 'x' } };

/** The kinds written (each with a valid object to mutate); `fixed` objects of each exist. */
const RESOURCES: readonly Resource[] = [
  { path: '/api/v1/namespaces/fuzz/configmaps', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: '1' } } },
  { path: '/api/v1/namespaces/fuzz/secrets', template: { apiVersion: 'v1', kind: 'Secret', metadata: meta, type: 'Opaque', data: { a: 'MQ==' } } },
  { path: '/api/v1/namespaces/fuzz/services', template: { apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { selector: { app: 'fuzz' }, ports: [{ port: 80, protocol: 'TCP' }] } } },
  {
    path: '/apis/apps/v1/namespaces/fuzz/statefulsets',
    template: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta, spec: { replicas: 1, serviceName: 'fuzz', selector: { matchLabels: { app: 'fuzz' } }, template: { metadata: { labels: { app: 'fuzz' } }, spec: podSpec } } },
  },
  {
    path: '/apis/apps/v1/namespaces/fuzz/deployments',
    template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { replicas: 1, selector: { matchLabels: { app: 'fuzz' } }, template: { metadata: { labels: { app: 'fuzz' } }, spec: podSpec } } },
  },
  { path: '/apis/batch/v1/namespaces/fuzz/jobs', template: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { template: { metadata: { labels: { app: 'fuzz' } }, spec: { ...podSpec, restartPolicy: 'Never' } } } } },
];

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'] as const;
const ODD_CONTENT_TYPES = ['', 'text/plain', 'application/json; charset=utf-8', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/apply-patch+yaml; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data', '*/*'];

const pointer = fc.oneof(
  fc.constantFrom('/metadata/labels/x', '/metadata/labels', '/metadata/annotations/a~1b', '/metadata/name', '/metadata/resourceVersion', '/data/a', '/data', '/spec/replicas', '/spec/template/spec/containers/0/image', '/spec/template/spec/containers/-', '/spec/containers/0', '/spec/ports/0/port', '/', '', '/-', '/a/b/c', '/metadata/finalizers/0', '/spec/containers/99'),
  oddString,
);
const jsonPatchOp = fc.record(
  { op: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test') }, oddString), path: pointer, from: pointer, value: oddJson },
  { requiredKeys: ['op', 'path'] },
);

type Case =
  | { readonly verb: 'create' | 'update'; readonly resource: number; readonly body: unknown; readonly enc: EncodingChoice; readonly contentType: string; readonly query: Query }
  | { readonly verb: 'patch'; readonly resource: number; readonly fresh: boolean; readonly sub: '' | '/status' | '/scale'; readonly body: unknown; readonly enc: EncodingChoice; readonly contentType: string; readonly query: Query }
  | { readonly verb: 'read'; readonly resource: number; readonly name: string | undefined; readonly watch: boolean; readonly accept: string; readonly query: Query }
  | { readonly verb: 'delete'; readonly resource: number; readonly body: unknown; readonly query: Query };

const resourceIndex = fc.nat({ max: RESOURCES.length - 1 });
const query = queryOf(VK8S_QUERY);
const objectBody = (resource: number): fc.Arbitrary<unknown> => mutated((RESOURCES[resource] as Resource).template);
const writeContentType = fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 3, arbitrary: fc.constant('application/yaml') }, fc.constantFrom(...ODD_CONTENT_TYPES));

const writeCase = (verb: 'create' | 'update'): fc.Arbitrary<Case> =>
  resourceIndex.chain((resource) => fc.record({ verb: fc.constant(verb), resource: fc.constant(resource), body: objectBody(resource), enc: encoding, contentType: writeContentType, query }));

const patchBody = (resource: number, contentType: string): fc.Arbitrary<unknown> => {
  if (contentType === 'application/json-patch+json') return fc.oneof({ weight: 4, arbitrary: fc.array(jsonPatchOp, { maxLength: 4 }) }, oddJson, mutated([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]));
  if (contentType.startsWith('application/apply-patch')) return objectBody(resource);
  return fc.oneof({ weight: 3, arbitrary: mutated({ metadata: { labels: { x: 'y' }, annotations: { a: null } }, spec: { replicas: 2, $patch: 'merge' }, data: { b: '2' } }) }, oddJson, objectBody(resource));
};

const patchCase: fc.Arbitrary<Case> = fc
  .record({ resource: resourceIndex, contentType: fc.oneof({ weight: 10, arbitrary: fc.constantFrom(...PATCH_TYPES) }, fc.constantFrom(...ODD_CONTENT_TYPES)) })
  .chain(({ resource, contentType }) =>
    fc.record({
      verb: fc.constant('patch' as const),
      resource: fc.constant(resource),
      fresh: fc.boolean(),
      sub: fc.oneof({ weight: 6, arbitrary: fc.constant('' as const) }, fc.constantFrom('/status' as const, '/scale' as const)),
      body: patchBody(resource, contentType),
      enc: encoding,
      contentType: fc.constant(contentType),
      query,
    }),
  );

const readCase: fc.Arbitrary<Case> = fc.record({
  verb: fc.constant('read' as const),
  resource: resourceIndex,
  name: fc.option(fc.oneof(fc.constant('fixed'), oddString), { nil: undefined }),
  watch: fc.boolean(),
  accept: fc.constantFrom('application/json', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', '*/*', 'text/html', ''),
  query,
});

const deleteCase: fc.Arbitrary<Case> = fc.record({
  verb: fc.constant('delete' as const),
  resource: resourceIndex,
  body: fc.oneof(fc.constant(undefined), mutated({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', gracePeriodSeconds: 0, preconditions: { uid: 'x', resourceVersion: '1' }, dryRun: ['All'] })),
  query,
});

const segment = (name: string): string => encodeURIComponent(Buffer.from(name, 'utf8').toString('utf8'));

/**
 * The vK8s API over HTTPS (`edgeplane server`): creates, updates, every patch type (and
 * server-side apply), reads, lists and watches with selectors and list parameters, deletes —
 * in virtual cluster `fuzz`. After a refused write the object it named is absent (a create or
 * apply of a fresh name) or unchanged (the `fixed` object's resourceVersion); a dry run stores
 * nothing either.
 */
export async function vk8sTarget(env: FuzzEnvironment): Promise<FuzzTarget<Case>> {
  const headers = { authorization: `APIToken ${env.adminToken}` };
  for (const resource of RESOURCES) {
    const body = JSON.stringify(resource.template).replaceAll(FRESH_NAME, 'fixed');
    const answer = await send(env.api, { method: 'POST', path: `${FUZZ_CLUSTER}${resource.path}`, headers: { ...headers, 'content-type': 'application/json' }, body });
    if (answer.status !== 201) throw new Error(`fuzz setup: creating fixed ${resource.path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  let counter = 0;
  const get = (path: string): Promise<FuzzAnswer> => send(env.api, { method: 'GET', path, headers });
  // What a client wrote: the object without its status and the server's bookkeeping
  // (controllers write status concurrently, so the resourceVersion alone would race).
  const written = async (path: string): Promise<string> => {
    const answer = await get(path);
    if (answer.status !== 200) return `HTTP ${answer.status}`;
    const { status: _status, metadata, ...rest } = JSON.parse(answer.body) as { status?: unknown; metadata: Record<string, unknown> };
    const { resourceVersion: _rv, managedFields: _mf, ...kept } = metadata;
    return JSON.stringify({ ...rest, metadata: kept });
  };
  const absent = async (path: string, why: string): Promise<string | undefined> => {
    const answer = await get(path);
    return answer.status === 404 ? undefined : `${why}, yet GET ${path} answers ${answer.status}`;
  };

  return {
    name: 'vK8s API',
    arbitrary: fc.oneof({ weight: 4, arbitrary: writeCase('create') }, { weight: 2, arbitrary: writeCase('update') }, { weight: 5, arbitrary: patchCase }, { weight: 3, arbitrary: readCase }, { weight: 1, arbitrary: deleteCase }),
    documented5xx: () => false,
    async run(c) {
      const resource = RESOURCES[c.resource] as Resource;
      const collection = `${FUZZ_CLUSTER}${resource.path}`;
      const fresh = `fz-${++counter}`;
      const dryRun = c.query['dryRun'] === 'All';
      switch (c.verb) {
        case 'create':
        case 'update': {
          const target = c.verb === 'create' ? collection : `${collection}/fixed`;
          const before = c.verb === 'update' ? await written(target) : '';
          const body = encode(c.body, c.enc).replaceAll(FRESH_NAME, c.verb === 'create' ? fresh : 'fixed');
          const answer = await send(env.api, { method: c.verb === 'create' ? 'POST' : 'PUT', path: `${target}${queryString(c.query)}`, headers: { ...headers, ...(c.contentType === '' ? {} : { 'content-type': c.contentType }) }, body });
          if (c.verb === 'create' && (answer.status >= 400 || dryRun)) return { answer, problem: await absent(`${collection}/${fresh}`, `create answered ${answer.status}${dryRun ? ' (dry run)' : ''}`) };
          if (c.verb === 'update' && (answer.status >= 400 || dryRun)) {
            const after = await written(target);
            if (after !== before) return { answer, problem: `update answered ${answer.status}${dryRun ? ' (dry run)' : ''}, yet the object changed from ${before} to ${after}` };
          }
          return { answer };
        }
        case 'patch': {
          const name = c.fresh ? fresh : 'fixed';
          const target = `${collection}/${name}`;
          const before = c.fresh ? '' : await written(target);
          const apply = c.contentType.startsWith('application/apply-patch');
          const body = encode(c.body, apply ? c.enc : { ...c.enc, kind: c.enc.kind === 'yaml' || c.enc.kind === 'bomb' ? 'json' : c.enc.kind }).replaceAll(FRESH_NAME, name);
          const extra: Record<string, string> = apply && c.query['fieldManager'] === undefined ? { fieldManager: 'fuzz' } : {};
          const answer = await send(env.api, { method: 'PATCH', path: `${target}${c.sub}${queryString(c.query, extra)}`, headers: { ...headers, ...(c.contentType === '' ? {} : { 'content-type': c.contentType }) }, body });
          if (answer.status < 400 && !dryRun) return { answer };
          const why = `patch answered ${answer.status}${dryRun ? ' (dry run)' : ''}`;
          if (c.fresh) return { answer, problem: await absent(target, why) };
          const after = await written(target);
          return { answer, ...(after === before ? {} : { problem: `${why}, yet the object changed from ${before} to ${after}` }) };
        }
        case 'read': {
          const path = c.name === undefined ? collection : `${collection}/${segment(c.name)}`;
          const watch: Record<string, string> = c.watch && c.name === undefined ? { watch: 'true' } : {};
          const answer = await send(env.api, { method: 'GET', path: `${path}${queryString(c.query, watch)}`, headers: { ...headers, ...(c.accept === '' ? {} : { accept: c.accept }) }, stream: c.watch });
          return { answer };
        }
        case 'delete': {
          // A fresh name (nothing to delete), or the fixed object in a dry run.
          const name = counter % 2 === 0 ? fresh : 'fixed';
          const before = await written(`${collection}/fixed`);
          const answer = await send(env.api, {
            method: 'DELETE',
            path: `${collection}/${name}${name === 'fixed' ? queryString({ ...c.query, dryRun: undefined }, { dryRun: 'All' }) : queryString(c.query)}`,
            headers: { ...headers, 'content-type': 'application/json' },
            ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
          });
          const after = await written(`${collection}/fixed`);
          return { answer, ...(after === before ? {} : { problem: `a delete of ${name} (dry run for fixed) answered ${answer.status}, yet the fixed object changed from ${before} to ${after}` }) };
        }
      }
    },
  };
}
