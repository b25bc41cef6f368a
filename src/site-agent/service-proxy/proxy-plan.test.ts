import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderHaproxyConfig } from './haproxy-config.js';
import type { ProxyService, SiteProxyInput } from './proxy-model.js';
import { diffProxyPlans } from './proxy-diff.js';
import { planProxy } from './proxy-plan.js';

const A = 'acme:default:vk1';
const B = 'beta:default:vk1';
const paths = { statsSocket: '/run/p/stats.sock', sourcesDir: '/run/p/sources' };
const svc = (cluster: string, name: string, ip: string, proxyType: ProxyService['proxyType'], port = 443, extra: Partial<ProxyService> = {}): ProxyService => ({ cluster, namespace: 'ns', name, clusterIP: ip, proxyType, http2: false, sniNames: [], ports: [{ name: 'p', protocol: 'TCP', port }], ...extra });
const base: SiteProxyInput = {
  services: [svc(A, 'web', '10.96.0.1', 'HTTP_PROXY', 80, { http2: true }), svc(A, 'tls', '10.96.0.2', 'TCP_PROXY_WITH_SNI', 443, { sniNames: ['api.example.com'] }), svc(B, 'db', '10.96.0.1', 'TCP_PROXY', 80)],
  endpoints: [{ cluster: A, namespace: 'ns', name: 'web', subsets: [{ ready: ['10.244.0.3', '10.244.0.2'], notReady: ['10.244.0.4'], ports: [{ name: 'p', protocol: 'TCP', port: 8080 }] }] }],
  clusterPods: { [A]: ['10.244.0.9', '10.244.0.2'], [B]: ['10.244.0.7'] },
};

describe('planProxy and renderHaproxyConfig', () => {
  it('is deterministic: the same Services in another order give the same configuration', () => {
    const shuffled = { ...base, services: [...base.services].reverse() };
    assert.equal(renderHaproxyConfig(planProxy(shuffled), paths), renderHaproxyConfig(planProxy(base), paths));
  });

  it('shares a ClusterIP:port between clusters, routing by source cluster, in tcp mode when the routes mix modes', () => {
    const config = renderHaproxyConfig(planProxy(base), paths);
    const frontend = config.slice(config.indexOf('frontend fe:10.96.0.1:80'), config.indexOf('frontend fe:10.96.0.2:443'));
    assert.match(frontend, /mode tcp\n {2}bind 10\.96\.0\.1:80\n/);
    assert.match(frontend, /acl from_0 src -f \/run\/p\/sources\/acme:default:vk1\.lst\n {2}acl from_1 src -f \/run\/p\/sources\/beta:default:vk1\.lst\n {2}tcp-request connection reject if !from_0 !from_1\n/);
    assert.match(frontend, /use_backend be:acme:default:vk1:ns:web:80 if from_0\n {2}use_backend be:beta:default:vk1:ns:db:80 if from_1/);
  });

  it('prints HTTP backends with forwarding headers, reuse, the 503 body and h2 servers keeping idle connections, not-ready ones disabled; TCP backends spliced, their servers without pool keywords', () => {
    const config = renderHaproxyConfig(planProxy(base), paths);
    assert.ok(config.includes([
      'backend be:acme:default:vk1:ns:web:80', '  mode http', '  balance roundrobin', '  option forwardfor', '  http-request set-header X-Forwarded-Proto http', '  http-reuse safe',
      '  http-error status 503 content-type text/plain string "no ready endpoint of Service ns/web port 80 on this site"',
      '  server 10.244.0.2:8080 10.244.0.2:8080 pool-max-conn -1 pool-purge-delay 5s proto h2',
      '  server 10.244.0.3:8080 10.244.0.3:8080 pool-max-conn -1 pool-purge-delay 5s proto h2',
      '  server 10.244.0.4:8080 10.244.0.4:8080 pool-max-conn -1 pool-purge-delay 5s proto h2 disabled',
    ].join('\n')), config);
    assert.match(config, /master-worker\n {2}stats socket \/run\/p\/stats\.sock mode 600 level admin expose-fd listeners\n/);
    assert.match(config, /hard-stop-after 30m/);
    const db = { cluster: B, namespace: 'ns', name: 'db', subsets: [{ ready: ['10.244.0.7'], notReady: [], ports: [{ name: 'p', protocol: 'TCP', port: 5432 }] }] };
    assert.match(renderHaproxyConfig(planProxy({ ...base, endpoints: [...base.endpoints, db] }), paths), /backend be:beta:default:vk1:ns:db:80\n {2}mode tcp\n {2}balance roundrobin\n {2}option splice-request\n {2}option splice-response\n {2}server 10\.244\.0\.7:5432 10\.244\.0\.7:5432\n/);
  });

  it('routes SNI by the three Service names and the annotation\'s, refusing unknown names', () => {
    const config = renderHaproxyConfig(planProxy(base), paths);
    assert.match(config, /tcp-request inspect-delay 5s\n {2}acl sni_0 req\.ssl_sni -i api\.example\.com tls tls\.ns tls\.ns\.svc\.cluster\.local\n {2}tcp-request content accept if from_0 \{ req\.ssl_hello_type 1 \} sni_0\n {2}tcp-request content reject\n {2}use_backend be:acme:default:vk1:ns:tls:443 if from_0 sni_0\n/);
  });

  it('reports what it cannot proxy: UDP ports, two SNI Services claiming one name, a second plain Service on one address', () => {
    const plan = planProxy({
      ...base,
      services: [
        svc(A, 'dns', '10.96.0.5', 'TCP_PROXY', 53, { ports: [{ name: 'u', protocol: 'UDP', port: 53 }] }),
        svc(A, 'a', '10.96.0.6', 'TCP_PROXY_WITH_SNI', 443, { sniNames: ['shared.example'] }),
        svc(A, 'b', '10.96.0.6', 'TCP_PROXY_WITH_SNI', 443, { sniNames: ['shared.example'] }),
        svc(A, 'c', '10.96.0.7', 'TCP_PROXY', 80),
        svc(A, 'd', '10.96.0.7', 'TCP_PROXY', 80),
      ],
    });
    assert.deepEqual(plan.problems.map((p) => `${p.service.name}: ${p.message}`), [
      'dns: port 53/UDP is not proxied: the site proxy carries TCP only',
      'b: server name shared.example on 10.96.0.6:443 is already Service ns/a\'s',
      'd: 10.96.0.7:80 is already Service ns/c\'s',
    ]);
    assert.deepEqual(plan.frontends.find((f) => f.name === 'fe:10.96.0.6:443')?.routes.map((r) => r.sniNames?.includes('shared.example')), [true, false]);
  });
});

describe('diffProxyPlans', () => {
  const before = planProxy(base);
  it('needs runtime commands only for endpoint and pod changes', () => {
    const after = planProxy({
      ...base,
      services: base.services.map((s) => (s.name === 'web' ? { ...s, http2: false } : s)),
      endpoints: [{ cluster: A, namespace: 'ns', name: 'web', subsets: [{ ready: ['10.244.0.4', '10.244.0.5'], notReady: ['10.244.0.2'], ports: [{ name: 'p', protocol: 'TCP', port: 8080 }] }] }],
      clusterPods: { [A]: ['10.244.0.9', '10.244.0.5'], [B]: ['10.244.0.7'] },
    });
    const be = 'be:acme:default:vk1:ns:web:80';
    const h1 = planProxy({ ...base, services: base.services.map((s) => (s.name === 'web' ? { ...s, http2: false } : s)) });
    assert.deepEqual(diffProxyPlans(h1, after, paths), {
      reloadReasons: [],
      commands: [
        'add acl /run/p/sources/acme:default:vk1.lst 10.244.0.5',
        `enable server ${be}/10.244.0.4:8080`,
        `add server ${be}/10.244.0.5:8080 10.244.0.5:8080 pool-max-conn -1 pool-purge-delay 5s`, `enable server ${be}/10.244.0.5:8080`,
        `disable server ${be}/10.244.0.2:8080`,
        `disable server ${be}/10.244.0.3:8080`, `del server ${be}/10.244.0.3:8080`,
        'del acl /run/p/sources/acme:default:vk1.lst 10.244.0.2',
      ],
    });
    assert.deepEqual(diffProxyPlans(before, planProxy(base), paths), { reloadReasons: [], commands: [] });
    // The same new endpoint on the HTTP/2 backend: a reload (runtime-added h2 servers reuse no connection).
    const h2 = planProxy({ ...base, endpoints: [{ cluster: A, namespace: 'ns', name: 'web', subsets: [{ ready: ['10.244.0.4', '10.244.0.5'], notReady: ['10.244.0.2'], ports: [{ name: 'p', protocol: 'TCP', port: 8080 }] }] }] });
    assert.deepEqual(diffProxyPlans(before, h2, paths).reloadReasons, [`${be} gained an HTTP/2 server`]);
  });

  it('reloads when a frontend, a route or a backend option changes, saying which', () => {
    const services = base.services.map((s) => (s.name === 'web' ? { ...s, http2: false } : s));
    assert.deepEqual(diffProxyPlans(before, planProxy({ ...base, services }), paths).reloadReasons, ['be:acme:default:vk1:ns:web:80 changed']);
    const typed = base.services.map((s) => (s.name === 'db' ? { ...s, proxyType: 'HTTP_PROXY' as const } : s));
    assert.deepEqual(diffProxyPlans(before, planProxy({ ...base, services: typed }), paths).reloadReasons, ['be:beta:default:vk1:ns:db:80 changed', 'fe:10.96.0.1:80 changed']);
    assert.deepEqual(diffProxyPlans(undefined, before, paths).reloadReasons, ['first configuration']);
  });
});
