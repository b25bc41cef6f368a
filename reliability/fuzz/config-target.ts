import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import type { FuzzEnvironment } from './fuzz-environment.js';
import { type FuzzAnswer, send } from './fuzz-request.js';
import type { FuzzTarget } from './fuzz-run.js';
import { encodePart, type Query, queryOf, queryString, selector } from './fuzz-query.js';
import { encode, encoding, type EncodingChoice, FRESH_NAME, mutated, oddString } from './fuzz-values.js';

interface Kind {
  readonly collection: string;
  readonly template: unknown;
}

const meta = { name: FRESH_NAME, labels: { app: 'fuzz' }, annotations: { note: 'x' }, description: 'fuzz' };

/** Kinds of the configuration API written by the fuzz (each with a valid object to mutate); a `fixed` object of each exists. */
const KINDS: readonly Kind[] = [
  { collection: '/api/config/namespaces/default/dns_domains', template: { metadata: meta, spec: { vendor_managed: {}, dnssec_mode: 'DNSSEC_DISABLE' } } },
  { collection: '/api/config/namespaces/default/policers', template: { metadata: meta, spec: { committed_information_rate: 100, burst_size: 10, policer_mode: 'POLICER_MODE_SHARED' } } },
  { collection: '/api/config/namespaces/default/forwarding_classs', template: { metadata: meta, spec: { interface_group: 'INTERFACE_GROUP1', dscp_based_queue: {}, policer: { name: 'fixed', namespace: 'default' } } } },
  { collection: '/api/config/namespaces/default/virtual_sites', template: { metadata: meta, spec: { site_type: 'REGIONAL_EDGE', site_selector: { expressions: ['svc.io/region=nowhere'] } } } },
  { collection: '/api/config/namespaces/default/workload_flavors', template: { metadata: meta, spec: { vcpus: 0.5, memory: 256, ephemeral_storage: 10 } } },
  {
    collection: '/api/secret_management/namespaces/default/secret_policys',
    template: { metadata: meta, spec: { algo: 'DENY_OVERRIDES', rules: [{ metadata: { name: 'allow-web' }, spec: { action: 'ALLOW', client_selector: { expressions: ['app=web'] } } }], decrypt_cache_timeout: '6h' } },
  },
  { collection: '/api/web/namespaces', template: { metadata: meta, spec: {} } },
];

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', '', 'text/plain', 'application/yaml', 'application/x-www-form-urlencoded'];
const CONFIG_QUERY = {
  label_filter: selector,
  report_fields: fc.constantFrom('', 'true', 'false', 'x'),
  response_format: fc.constantFrom('0', '1', '2', '5', 'GET_RSP_FORMAT_DEFAULT', 'GET_RSP_FORMAT_READ', 'GET_RSP_FORMAT_FOR_CREATE', 'GET_RSP_FORMAT_NOPE', '-1', ''),
};

type Case =
  | { readonly verb: 'create' | 'replace'; readonly kind: number; readonly body: unknown; readonly enc: EncodingChoice; readonly contentType: string }
  | { readonly verb: 'read'; readonly kind: number; readonly name: string | undefined; readonly query: Query }
  | { readonly verb: 'delete'; readonly kind: number; readonly body: unknown };

const kindIndex = fc.nat({ max: KINDS.length - 1 });
const contentType = fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, fc.constantFrom(...CONTENT_TYPES));
const writeCase = (verb: 'create' | 'replace'): fc.Arbitrary<Case> =>
  kindIndex.chain((kind) => fc.record({ verb: fc.constant(verb), kind: fc.constant(kind), body: mutated((KINDS[kind] as Kind).template), enc: encoding, contentType }));

/**
 * The configuration API over HTTPS (`edgeplane server`): creates and replaces of seven kinds
 * (bodies mutated from valid ones), gets and lists with `label_filter`, `report_fields` and
 * `response_format`, deletes. After a refused create the fresh name is absent; after a refused
 * replace the `fixed` object reads as before.
 */
export async function configTarget(env: FuzzEnvironment): Promise<FuzzTarget<Case>> {
  const headers = { authorization: `APIToken ${env.adminToken}` };
  for (const kind of KINDS) {
    const body = JSON.stringify(kind.template).replaceAll(FRESH_NAME, 'fixed');
    const answer = await send(env.api, { method: 'POST', path: kind.collection, headers: { ...headers, 'content-type': 'application/json' }, body });
    if (answer.status !== 200) throw new Error(`fuzz setup: creating fixed in ${kind.collection}: ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  let counter = 0;
  /**
   * The checks' own reads: the configuration API's per-credential rate limit (issue 20) may
   * answer them 429 too, which says nothing about the object, so they wait and ask again.
   */
  const get = async (path: string): Promise<FuzzAnswer> => {
    for (let attempt = 1; ; attempt++) {
      const answer = await send(env.api, { method: 'GET', path, headers });
      if (answer.status !== 429 || attempt === 20) return answer;
      await delay(250);
    }
  };
  const snapshot = async (path: string): Promise<string> => {
    const answer = await get(path);
    return `${answer.status} ${answer.body}`;
  };
  return {
    name: 'configuration API',
    arbitrary: fc.oneof(
      { weight: 4, arbitrary: writeCase('create') },
      { weight: 3, arbitrary: writeCase('replace') },
      { weight: 2, arbitrary: fc.record({ verb: fc.constant('read' as const), kind: kindIndex, name: fc.option(fc.oneof(fc.constant('fixed'), oddString), { nil: undefined }), query: queryOf(CONFIG_QUERY) }) },
      { weight: 1, arbitrary: fc.record({ verb: fc.constant('delete' as const), kind: kindIndex, body: fc.oneof(fc.constant(undefined), mutated({ fail_if_referred: true, name: 'x', namespace: 'default' })) }) },
    ),
    documented5xx: () => false,
    async run(c) {
      const kind = KINDS[c.kind] as Kind;
      const fresh = `fz-${++counter}`;
      switch (c.verb) {
        case 'create': {
          const body = encode(c.body, c.enc).replaceAll(FRESH_NAME, fresh);
          const answer = await send(env.api, { method: 'POST', path: kind.collection, headers: { ...headers, ...(c.contentType === '' ? {} : { 'content-type': c.contentType }) }, body });
          if (answer.status < 400) return { answer };
          const after = await get(`${kind.collection}/${fresh}`);
          return { answer, ...(after.status === 404 ? {} : { problem: `create answered ${answer.status}, yet GET ${fresh} answers ${after.status}` }) };
        }
        case 'replace': {
          const target = `${kind.collection}/fixed`;
          const before = await snapshot(target);
          const body = encode(c.body, c.enc).replaceAll(FRESH_NAME, 'fixed');
          const answer = await send(env.api, { method: 'PUT', path: target, headers: { ...headers, ...(c.contentType === '' ? {} : { 'content-type': c.contentType }) }, body });
          if (answer.status < 400) return { answer };
          const after = await snapshot(target);
          return { answer, ...(after === before ? {} : { problem: `replace answered ${answer.status}, yet the object changed from ${before} to ${after}` }) };
        }
        case 'read': {
          const path = c.name === undefined ? kind.collection : `${kind.collection}/${encodePart(c.name)}`;
          return { answer: await send(env.api, { method: 'GET', path: `${path}${queryString(c.query)}`, headers }) };
        }
        case 'delete': {
          // A fresh name: nothing to delete (the fixed objects stay for the replaces).
          const answer = await send(env.api, { method: 'DELETE', path: `${kind.collection}/${fresh}`, headers: { ...headers, 'content-type': 'application/json' }, ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }) });
          return { answer };
        }
      }
    },
  };
}
