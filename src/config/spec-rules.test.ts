import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './errors.js';
import { NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import { normalizeSpec } from './normalize-spec.js';
import { configOpenApi } from './openapi.js';

const kind = (name: string): ConfigKind => NAMESPACED_KINDS.get(name) as ConfigKind;
const fails = (k: string, spec: unknown, message: RegExp): void => {
  assert.throws(
    () => normalizeSpec(kind(k), spec),
    (e: unknown) => e instanceof ConfigError && e.code === 'InvalidArgument' && message.test(e.message),
    `${k} ${JSON.stringify(spec)} should fail with ${message}`,
  );
};
const secret = { clear_secret_info: { url: 'string:///dG9r' } };
const sma = (extra: Record<string, unknown>): Record<string, unknown> => ({ provider_name: 'v', access_info: { server_endpoint: 'vault:8200' }, vault_auth_info: { token: secret }, ...extra });

describe('spec rules of every kind', () => {
  it('dns_domain: dnssec modes; the managed choice is the default', () => {
    assert.deepEqual(normalizeSpec(kind('dns_domain'), {}), { vendor_managed: {}, dnssec_mode: 'DNSSEC_DISABLE' });
    assert.equal(normalizeSpec(kind('dns_domain'), { dnssec_mode: 'DNSSEC_ENABLE' })['dnssec_mode'], 'DNSSEC_ENABLE');
    fails('dns_domain', { dnssec_mode: 'ON' }, /spec.dnssec_mode: must be one of DNSSEC_DISABLE, DNSSEC_ENABLE/);
    fails('dns_domain', { vendor_managed: { x: 1 } }, /spec.vendor_managed.x: unknown field/);
  });

  it('forwarding_class: interface groups, marking, queueing and policer one-ofs, DSCP classes, tos 0–255', () => {
    assert.deepEqual(normalizeSpec(kind('forwarding_class'), { interface_group: 'INTERFACE_GROUP3' }), {
      interface_group: 'INTERFACE_GROUP3',
      no_marking: {},
      dscp_based_queue: {},
      no_policer: {},
    });
    const dscp = normalizeSpec(kind('forwarding_class'), { interface_group: 'ANY_AVAILABLE_INTERFACE', dscp: { dscp_class: 'DSCP_EXPRESS_FORWARDING' }, queue_id_to_use: 'DSCP_CONTROL_L2' });
    assert.deepEqual(dscp['dscp'], { dscp_class: 'DSCP_EXPRESS_FORWARDING', drop_precedence: 'DSCP_AF_LOW' });
    assert.equal(dscp['dscp_based_queue'], undefined);
    assert.equal(normalizeSpec(kind('forwarding_class'), { interface_group: 'INTERFACE_GROUP1', tos_value: 0 })['tos_value'], 0);
    fails('forwarding_class', { interface_group: 'INTERFACE_GROUP1', tos_value: -1 }, /spec.tos_value: must be >= 0/);
    fails('forwarding_class', { interface_group: 'INTERFACE_GROUP1', dscp: { dscp_class: 'DSCP_CLASS9' } }, /spec.dscp.dscp_class: must be one of/);
    fails('forwarding_class', { interface_group: 'INTERFACE_GROUP1', dscp: { dscp_class: 'DSCP_CLASS1', drop_precedence: 'LOW' } }, /drop_precedence: must be one of DSCP_AF_LOW/);
    fails('forwarding_class', { interface_group: 'INTERFACE_GROUP1', dscp_based_queue: {}, queue_id_to_use: 'DSCP_CLASS1' }, /only one of dscp_based_queue, queue_id_to_use may be set/);
    fails('forwarding_class', { interface_group: 'INTERFACE_GROUP1', no_policer: {}, policer: { name: 'p' } }, /only one of no_policer, policer may be set/);
    fails('forwarding_class', { interface_group: 'INTERFACE_GROUP1', queue_id_to_use: 'EF' }, /spec.queue_id_to_use: must be one of/);
  });

  it('policer: rate and burst at least 1, modes and types', () => {
    const p = normalizeSpec(kind('policer'), { committed_information_rate: 1, burst_size: 1 });
    assert.deepEqual(p, { committed_information_rate: 1, burst_size: 1, policer_mode: 'POLICER_MODE_NOT_SHARED', policer_type: 'POLICER_SINGLE_RATE_TWO_COLOR' });
    fails('policer', { committed_information_rate: 0, burst_size: 1 }, /committed_information_rate: must be >= 1/);
    fails('policer', { committed_information_rate: 1.5, burst_size: 1 }, /committed_information_rate: must be integer/);
    fails('policer', { committed_information_rate: 1, burst_size: 1, policer_mode: 'SHARED' }, /policer_mode: must be one of POLICER_MODE_NOT_SHARED, POLICER_MODE_SHARED/);
  });

  it('virtual_site: selector syntax and a site type are required', () => {
    normalizeSpec(kind('virtual_site'), { site_type: 'REGIONAL_EDGE', site_selector: { expressions: ['a in (x, y), !b', 'c'] } });
    fails('virtual_site', { site_selector: { expressions: ['a=b'] } }, /spec.site_type: is required/);
    fails('virtual_site', { site_type: 'EDGE', site_selector: { expressions: ['a=b'] } }, /spec.site_type: must be one of REGIONAL_EDGE, CUSTOMER_EDGE/);
    fails('virtual_site', { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['a in (b'] } }, /spec.site_selector.expressions\[0\]: Cannot parse label selector "a in \(b": missing closing parenthesis/);
    fails('virtual_site', { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: [] } }, /expressions: must NOT have fewer than 1 items/);
  });

  it('workload_flavor: vcpus above 0 up to 8, memory 1–32768 MiB', () => {
    normalizeSpec(kind('workload_flavor'), { vcpus: 8, memory: 32768 });
    fails('workload_flavor', { vcpus: 0, memory: 10 }, /spec.vcpus: must be > 0/);
    fails('workload_flavor', { vcpus: 9, memory: 10 }, /spec.vcpus: must be <= 8/);
    fails('workload_flavor', { vcpus: 1, memory: 0 }, /spec.memory: must be >= 1/);
    fails('workload_flavor', { vcpus: 1, memory: 32769 }, /spec.memory: must be <= 32768/);
    fails('workload_flavor', { vcpus: 1 }, /spec.memory: is required/);
  });

  it('virtual_k8s: at most 32 virtual site references; isolation one-of with a default; a Pod Security floor, baseline by default', () => {
    assert.deepEqual(normalizeSpec(kind('virtual_k8s'), {}), { pod_security_floor: 'BASELINE', disabled: {} });
    assert.deepEqual(normalizeSpec(kind('virtual_k8s'), { pod_security_floor: 'PRIVILEGED' }), { pod_security_floor: 'PRIVILEGED', disabled: {} });
    fails('virtual_k8s', { pod_security_floor: 'RESTRICTED' }, /spec.pod_security_floor: must be one of BASELINE, PRIVILEGED/);
    fails('virtual_k8s', { vsite_refs: Array.from({ length: 33 }, (_, i) => ({ name: `v${i}` })) }, /spec.vsite_refs: must NOT have more than 32 items/);
    fails('virtual_k8s', { disabled: {}, isolated: {} }, /only one of disabled, isolated may be set/);
    fails('virtual_k8s', { vsite_refs: [{ namespace: 'x' }] }, /spec.vsite_refs\[0\].name: is required/);
  });

  it('secret_policy: algorithms, actions, one predicate per rule, regexes that compile, selectors that parse', () => {
    assert.deepEqual(normalizeSpec(kind('secret_policy'), {}), { algo: 'FIRST_MATCH', rules: [] });
    const ok = { metadata: { name: 'r' }, spec: { action: 'ALLOW' } };
    normalizeSpec(kind('secret_policy'), { algo: 'ALLOW_OVERRIDES', rules: [ok], decrypt_cache_timeout: '90s' });
    fails('secret_policy', { algo: 'MAJORITY' }, /spec.algo: must be one of FIRST_MATCH, DENY_OVERRIDES, ALLOW_OVERRIDES/);
    fails('secret_policy', { rules: [{ metadata: { name: 'r' }, spec: { action: 'MAYBE' } }] }, /spec.rules\[0\].spec.action: must be one of ALLOW, DENY/);
    fails('secret_policy', { rules: [{ metadata: { name: 'r' }, spec: { action: 'ALLOW', client_name: 'a', client_selector: { expressions: ['a'] } } }] }, /only one of client_name, client_name_matcher, client_selector may be set/);
    fails('secret_policy', { rules: [{ metadata: { name: 'r' }, spec: { action: 'DENY', client_name_matcher: { regex_values: ['(unclosed'] } } }] }, /regex_values\[0\]: does not compile/);
    fails('secret_policy', { rules: [{ metadata: { name: 'r' }, spec: { action: 'DENY', client_selector: { expressions: ['a notin ()'] } } }] }, /client_selector.expressions\[0\]: Cannot parse label selector/);
    fails('secret_policy', { rules: [ok, ok] }, /duplicate rule name "r"/);
    fails('secret_policy', { rules: [{ metadata: { name: 'Bad_Name' }, spec: { action: 'ALLOW' } }] }, /spec.rules\[0\].metadata.name: a DNS-1035 label/);
    fails('secret_policy', { decrypt_cache_timeout: '6 hours' }, /decrypt_cache_timeout: must match pattern/);
    fails('secret_policy', { rules: Array.from({ length: 257 }, (_, i) => ({ metadata: { name: `r${i}` }, spec: { action: 'ALLOW' } })) }, /must NOT have more than 256 items/);
  });

  it('secret_management_access: endpoint host:port, scheme, exactly one auth and one secret form', () => {
    assert.equal(normalizeSpec(kind('secret_management_access'), sma({}))['access_info'] !== undefined, true);
    assert.equal((normalizeSpec(kind('secret_management_access'), sma({})) as { access_info: { scheme: string } }).access_info.scheme, 'HTTPS');
    normalizeSpec(kind('secret_management_access'), sma({ access_info: { server_endpoint: '[::1]:8200', scheme: 'HTTP' } }));
    normalizeSpec(kind('secret_management_access'), sma({ vault_auth_info: { app_role_auth: { role_id: 'r', secret_id: secret } } }));
    fails('secret_management_access', sma({ access_info: { server_endpoint: 'vault' } }), /server_endpoint: "vault" is not host:port/);
    fails('secret_management_access', sma({ access_info: { server_endpoint: 'vault:99999' } }), /port 99999 is not between 1 and 65535/);
    fails('secret_management_access', sma({ access_info: { server_endpoint: 'bad_host!:80' } }), /is not a host name or IP address/);
    fails('secret_management_access', sma({ access_info: { server_endpoint: 'v:1', scheme: 'FTP' } }), /scheme: must be one of HTTP, HTTPS/);
    fails('secret_management_access', sma({ vault_auth_info: {} }), /spec.vault_auth_info: one of token, app_role_auth is required/);
    fails('secret_management_access', sma({ vault_auth_info: { token: secret, app_role_auth: { role_id: 'r', secret_id: secret } } }), /only one of token, app_role_auth/);
    fails('secret_management_access', sma({ vault_auth_info: { token: { ...secret, blindfold_secret_info: { location: 'string:///YQ==' } } } }), /only one of blindfold_secret_info, clear_secret_info/);
    fails('secret_management_access', sma({ vault_auth_info: { token: { clear_secret_info: { url: 'http://x' } } } }), /url: must match pattern/);
    fails('secret_management_access', { provider_name: 'v', access_info: { server_endpoint: 'v:1' } }, /spec: one of vault_auth_info is required/);
  });

  it('the OpenAPI document covers every kind with the very schemas that validate requests', () => {
    const doc = configOpenApi('test') as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    for (const k of NAMESPACED_KINDS.values()) {
      const path = `/api/${k.slug}/namespaces/{namespace}/${k.kind}s`;
      assert.ok(doc.paths[path]?.['get'] !== undefined, path);
      assert.equal(doc.paths[path]?.['post'] !== undefined, k.publicCreate, `${path} post`);
      assert.ok(doc.paths[`${path}/{name}`]?.['put'] !== undefined);
      assert.equal(doc.components.schemas[`${k.kind}.spec`], k.specSchema, 'the same object, not a copy');
    }
    assert.ok(doc.paths['/api/web/namespaces']?.['post'] !== undefined);
  });
});

describe('kind declarations', () => {
  it('refersTo names exactly the kinds each kind\'s references point at', () => {
    const samples: Record<string, Record<string, unknown>> = {
      forwarding_class: { interface_group: 'INTERFACE_GROUP1', policer: { name: 'p' } },
      virtual_k8s: { vsite_refs: [{ name: 'v' }], default_flavor_ref: { name: 'f' } },
    };
    for (const k of NAMESPACED_KINDS.values()) {
      const found = new Set((k.references?.(samples[k.kind] ?? {}) ?? []).map((r) => r.targetKind));
      assert.deepEqual([...found].sort(), [...(k.refersTo ?? [])].sort(), k.kind);
    }
  });
});
