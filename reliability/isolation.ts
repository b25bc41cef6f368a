import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../test/e2e/support/server-process.js';
import type { AreaReport, ReliabilityArea, Scale } from './area.js';
import { dataPlaneMatrix } from './isolation-data-plane.js';
import { APIS, isolationCells, survivorCells, type Api, type Cell } from './isolation-cells.js';
import { homeTokens, IsolationClient, makeTenant } from './isolation-tenants.js';

interface Tally {
  tried: number;
  denied: number;
  allowed: number;
  wrong: number;
}

/**
 * Tenant isolation against a real `edgeplane server` process: two tenants (`default`, made at
 * bootstrap, and `beta`, made through `POST /api/web/tenants`), each with every credential
 * kind (admin and monitor API tokens, a kubeconfig for its virtual cluster, a site
 * registration token and its site's agent certificate; at the long scale a running pod and
 * its bootstrap token), then every API × verb × boundary cell of `isolation-cells.ts` in
 * both directions. `ok` when every cross-boundary cell is denied and every control inside a
 * boundary is allowed, and the victim's objects survive. The short scale tries one verb per
 * API and boundary, without pods. Then the data plane (`isolation-data-plane.ts`): a runc
 * regional edge shared by two tenants, every attack from a pod with its controls.
 */
export const isolationArea: ReliabilityArea = {
  name: 'isolation',
  description:
    'two tenants × every credential kind × API × verb: cross-boundary requests denied, own ones allowed; on a runc regional edge they share, every attack from a pod stopped and every control working',
  run: async (scale: Scale, progress) => {
    const api = await apiMatrix(scale, progress);
    progress('the data plane: a runc regional edge shared by two tenants');
    const data = await dataPlaneMatrix(scale, progress);
    return { ok: api.ok && data.ok, markdown: [...api.markdown, ...data.markdown], failures: [...api.failures, ...data.failures] };
  },
};

/** The API half: both tenants' credentials against every API, verb and boundary. */
async function apiMatrix(scale: Scale, progress: (line: string) => void): Promise<AreaReport> {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-isolation-'));
  const home = join(root, 'home');
  const pods = scale === 'long';
  const server = await startServer(home, pods ? ['--local-sites', '--no-starter-cluster'] : []);
  try {
    const client = new IsolationClient(server.url, readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'));
    const tokens = homeTokens(home);
    const created = await client.ok<{ admin_token: string }>({ token: tokens.platform }, { method: 'POST', path: '/api/web/tenants', body: { name: 'beta' } });
    progress('tenants default and beta made; issuing their credentials');
    const [alpha, beta] = await Promise.all([makeTenant(client, 'default', tokens.admin, { pods }), makeTenant(client, 'beta', created.admin_token, { pods })]);
    const all = [...isolationCells(alpha, beta), ...isolationCells(beta, alpha), ...survivorCells(alpha), ...survivorCells(beta)];
    const cells = scale === 'short' ? all.filter((c) => c.short === true) : all;
    progress(`${cells.length} cells`);
    const failures: string[] = [];
    const tally = new Map<Api, Tally>(APIS.map((api) => [api, { tried: 0, denied: 0, allowed: 0, wrong: 0 }]));
    // One after another: a cell may depend on the ones before (the survivors come last).
    for (const cell of cells) {
      const t = tally.get(cell.api) as Tally;
      t.tried++;
      const problem = await judge(client, cell);
      if (problem === undefined) {
        if (cell.boundary === 'cross') t.denied++;
        else t.allowed++;
      } else {
        t.wrong++;
        failures.push(`${cell.api} ${cell.verb}: ${cell.what} (${cell.call.method} ${cell.call.path.split('?')[0] ?? ''}): expected ${cell.expected}, ${problem}`);
      }
    }
    return { ok: failures.length === 0, markdown: report(tally, cells), failures };
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

async function judge(client: IsolationClient, cell: Cell): Promise<string | undefined> {
  try {
    return cell.judge(await client.request(cell.caller, cell.call));
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function report(tally: ReadonlyMap<Api, Tally>, cells: readonly Cell[]): AreaReport['markdown'] {
  const lines = ['| API | cells tried | cross-boundary, denied | own-boundary controls, allowed | not as expected |', '|---|---:|---:|---:|---:|'];
  let total: Tally = { tried: 0, denied: 0, allowed: 0, wrong: 0 };
  for (const [api, t] of tally) {
    if (t.tried === 0) continue;
    lines.push(`| ${api} | ${t.tried} | ${t.denied} | ${t.allowed} | ${t.wrong} |`);
    total = { tried: total.tried + t.tried, denied: total.denied + t.denied, allowed: total.allowed + t.allowed, wrong: total.wrong + t.wrong };
  }
  lines.push(`| **all** | ${total.tried} | ${total.denied} | ${total.allowed} | ${total.wrong} |`);
  const verbs = new Map<string, Set<string>>();
  for (const cell of cells) {
    const set = verbs.get(cell.api) ?? new Set<string>();
    set.add(cell.verb);
    verbs.set(cell.api, set);
  }
  lines.push('', 'Verbs tried per API: ' + [...verbs].map(([api, set]) => `${api} (${[...set].join(', ')})`).join('; ') + '. The configuration, identity, secret and web APIs have no watch; logs and exec exist on the vK8s API only.');
  lines.push(
    '',
    'Credentials per tenant: admin API token, monitor API token, kubeconfig client certificate of its virtual cluster, site registration token, the registered site agent\'s certificate; at the long scale also a running pod\'s bootstrap token. Denied means 401, 403 or 404 (404 hides another tenant\'s objects), or a list without the other tenant\'s objects.',
  );
  return lines;
}
