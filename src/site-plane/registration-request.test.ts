import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../apimachinery/errors/status-error.js';
import { parseRegistrationRequest } from './registration-request.js';

const CSR = '-----BEGIN CERTIFICATE REQUEST-----\nMII…\n-----END CERTIFICATE REQUEST-----\n';
const site = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'edge-a', type: 'CUSTOMER_EDGE', labels: { 'svc.io/region': 'eu' }, nodes: [{ name: 'n0', cpu: '8', memory: '16384Mi' }], ...extra });

function causes(body: unknown, type: 'CUSTOMER_EDGE' | 'REGIONAL_EDGE' = 'CUSTOMER_EDGE'): string[] {
  try {
    parseRegistrationRequest(body, type);
  } catch (error) {
    assert.ok(error instanceof StatusError && error.reason === 'Invalid', String(error));
    return (error.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
  }
  assert.fail('no error');
}

describe('registration request', () => {
  it('registration request adds the site labels and canonical quantities', () => {
    const request = parseRegistrationRequest({ agent: 'agent-1', csr: CSR, sites: [site()], unknown: true }, 'CUSTOMER_EDGE');
    assert.equal(request.agent, 'agent-1');
    assert.deepEqual(request.sites, [
      { name: 'edge-a', type: 'CUSTOMER_EDGE', labels: { 'svc.io/region': 'eu', 'svc.io/siteName': 'edge-a', 'svc.io/siteType': 'svc-io-ce' }, nodes: [{ name: 'n0', cpu: '8', memory: '16Gi' }], runtime: 'simulated' },
    ]);
  });

  it('registration request keeps a regional-edge quota', () => {
    const request = parseRegistrationRequest({ agent: 'a', csr: CSR, sites: [site({ type: 'REGIONAL_EDGE', quota: { cpu: '2000m', memory: '4Gi' } })] }, 'REGIONAL_EDGE');
    assert.deepEqual(request.sites[0]?.quota, { cpu: '2', memory: '4Gi' });
    assert.equal(request.sites[0]?.labels['svc.io/siteType'], 'svc-io-re');
  });

  it('registration request reports every problem with its field path', () => {
    const body = {
      agent: 'Agent_1',
      csr: 'nope',
      sites: [
        site({ name: '1edge', type: 'REGIONAL_EDGE', quota: { cpu: '1', memory: '1Gi' } }),
        site({ labels: { 'svc.io/siteName': 'other', 'bad key!': 'x' }, nodes: [{ name: 'n0', cpu: '0', memory: 'lots' }, { name: 'n0', cpu: '1', memory: '1Gi' }] }),
        site(),
      ],
    };
    const found = causes(body);
    const expect = [
      /^agent: Invalid value: "Agent_1": a DNS-1123 subdomain/,
      /^csr: Required value: a PEM PKCS#10 certificate request$/,
      /^sites\[0\]\.name: Invalid value: "1edge": a DNS-1035 label/,
      /^sites\[0\]\.type: Unsupported value: "REGIONAL_EDGE": supported values: "CUSTOMER_EDGE"$/,
      /^sites\[0\]\.quota: Forbidden: only regional-edge sites have a quota$/,
      /^sites\[1\]\.nodes\[0\]\.cpu: Invalid value: "0": must be greater than 0$/,
      /^sites\[1\]\.nodes\[0\]\.memory: Invalid value: "lots": quantities must match/,
      /^sites\[1\]\.nodes\[1\]\.name: Duplicate value: "n0"$/,
      /^sites\[1\]\.labels: Invalid value: "bad key!"/,
      /^sites\[1\]\.labels\[svc\.io\/siteName\]: Forbidden: is set by registration to "edge-a"$/,
      /^sites\[2\]\.name: Duplicate value: "edge-a"$/,
    ];
    for (const pattern of expect) assert.ok(found.some((line) => pattern.test(line)), `${String(pattern)} in\n${found.join('\n')}`);
    assert.equal(found.length, expect.length, found.join('\n'));
  });

  it('registration request takes the site runtime: simulated when absent, runc with its version', () => {
    const parse = (extra: Record<string, unknown>) => parseRegistrationRequest({ agent: 'a', csr: CSR, sites: [site(extra)] }, 'CUSTOMER_EDGE').sites[0];
    assert.equal(parse({})?.runtime, 'simulated');
    assert.equal(parse({ runtime: null })?.runtime, 'simulated');
    assert.deepEqual([parse({ runtime: 'runc', runtimeVersion: '1.1.5+ds1' })?.runtime, parse({ runtime: 'runc', runtimeVersion: '1.1.5+ds1' })?.runtimeVersion], ['runc', '1.1.5+ds1']);
    assert.equal(parse({ runtime: 'runc' })?.runtimeVersion, undefined);
  });

  it('registration request refuses an unknown runtime naming the allowed ones, and a version it cannot show', () => {
    assert.deepEqual(causes({ agent: 'a', csr: CSR, sites: [site({ runtime: 'docker' })] }), ['sites[0].runtime: Unsupported value: "docker": supported values: "simulated", "runc"']);
    assert.deepEqual(causes({ agent: 'a', csr: CSR, sites: [site({ runtime: 7 })] }), ['sites[0].runtime: Unsupported value: 7: supported values: "simulated", "runc"']);
    assert.deepEqual(causes({ agent: 'a', csr: CSR, sites: [site({ runtimeVersion: '1.0' })] }), ['sites[0].runtimeVersion: Forbidden: only a runc site reports its runtime version']);
    assert.deepEqual(causes({ agent: 'a', csr: CSR, sites: [site({ runtime: 'runc', runtimeVersion: '1.0 beta' })] }), [
      'sites[0].runtimeVersion: Invalid value: "1.0 beta": must be 1-64 characters of letters, digits and ".+_~-", starting with a letter or digit',
    ]);
    assert.equal(causes({ agent: 'a', csr: CSR, sites: [site({ runtime: 'runc', runtimeVersion: 'v'.repeat(65) })] }).length, 1);
  });

  it('registration request needs sites with nodes', () => {
    assert.deepEqual(causes({ agent: 'a', csr: CSR, sites: [] }), ['sites: Required value: at least one site']);
    assert.deepEqual(causes({ agent: 'a', csr: CSR, sites: [site({ nodes: [] })] }), ['sites[0].nodes: Required value: a site has at least one node']);
    assert.throws(() => parseRegistrationRequest([], 'CUSTOMER_EDGE'), /must be a JSON object/);
  });
});
