import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpsRequest } from '../client/https-client.js';
import type { Logger } from '../observability/logger.js';
import type { RegisterSite } from '../site-api/site-api-types.js';
import { startSiteAgent, type SiteAgent } from '../site-agent/site-agent.js';
import { findRuntimePrograms, type RuntimeProgramPaths } from '../site-agent/runtimes/runc/index.js';

/** Whether this machine can run the runc runtime, and if not why. */
function runcAvailability(programs: RuntimeProgramPaths): { ok: true } | { ok: false; reason: string } {
  try {
    findRuntimePrograms(programs);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
import type { SiteType } from '../site-api/site-model.js';

export interface LocalSitesOptions {
  /** The control plane's `$EDGEPLANE_HOME` (its CA, admin tokens); agents keep their credentials under `<home>/sites/`. */
  readonly home: string;
  readonly url: string;
  readonly logger: Logger;
  /** Where the local customer edge's runc runtime finds its programs (default: PATH). */
  readonly programs?: RuntimeProgramPaths;
}

export interface LocalSites {
  readonly sites: readonly string[];
  close(): Promise<void>;
}

const node = { name: 'node-0', cpu: '4', memory: '8Gi' };

/**
 * The embedded default's three sites (ARCHITECTURE: "the control plane, SQLite and three local
 * sites in one process tree"): two regional edges (`local-re-1`, `local-re-2`) and one
 * customer edge of the default tenant (`local-ce-1`). The regional edges are simulated; the
 * customer edge runs real pods on runc (with `--host-image`) when the machine allows it (root,
 * runc, conmon, catatonit — `npm start` provisions them), simulated otherwise, and the log says
 * which and why. They join as any site
 * does — a registration token from the site API, then mTLS — with the admin tokens the control
 * plane wrote into its home; on later starts their stored credentials are reused.
 */
export async function startLocalSites(options: LocalSitesOptions): Promise<LocalSites> {
  const ca = readFileSync(join(options.home, 'pki', 'ca.crt'), 'utf8');
  const tokenOf = async (type: SiteType, adminTokenFile: string): Promise<string> => {
    const admin = readFileSync(join(options.home, adminTokenFile), 'utf8').trim();
    const r = await httpsRequest(`${options.url}/api/sites/v1/tokens`, ca, {
      method: 'POST',
      headers: { authorization: `APIToken ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type, ttl_seconds: 600 }),
    });
    if (r.status !== 200) throw new Error(`local sites: a ${type} registration token was refused (HTTP ${r.status}): ${r.body}`);
    return r.json<{ token: string }>().token;
  };
  const site = (name: string, type: SiteType): RegisterSite => ({ name, type, labels: { 'svc.io/region': 'local' }, nodes: [node] });
  const groups: Array<{ agent: string; type: SiteType; adminTokenFile: string; sites: RegisterSite[] }> = [
    { agent: 'local-re', type: 'REGIONAL_EDGE', adminTokenFile: 'platform-api-token', sites: [site('local-re-1', 'REGIONAL_EDGE'), site('local-re-2', 'REGIONAL_EDGE')] },
    { agent: 'local-ce', type: 'CUSTOMER_EDGE', adminTokenFile: 'api-token', sites: [site('local-ce-1', 'CUSTOMER_EDGE')] },
  ];
  const programs = options.programs ?? {};
  const runc = runcAvailability(programs);
  const agents: SiteAgent[] = [];
  try {
    for (const group of groups) {
      const real = group.type === 'CUSTOMER_EDGE' && runc.ok;
      agents.push(
        await startSiteAgent({
          home: join(options.home, 'sites', group.agent),
          agent: group.agent,
          sites: group.sites,
          token: await tokenOf(group.type, group.adminTokenFile),
          server: options.url,
          heartbeatSeconds: 10,
          ...(real ? { runtime: 'runc' as const, runc: { hostImage: true, programs }, removePodsOnClose: true } : {}),
          logger: options.logger.child({ agent: group.agent }),
        }),
      );
    }
  } catch (error) {
    await Promise.all(agents.map((a) => a.close()));
    throw error;
  }
  const sites = agents.flatMap((a) => a.sites);
  options.logger.info({ sites: sites.filter((s) => s.startsWith('local-re')) }, 'local regional edges running (simulated runtime)');
  if (runc.ok) options.logger.info({ site: 'local-ce-1' }, 'local customer edge running real pods (runc runtime, --host-image)');
  else options.logger.warn({ site: 'local-ce-1', reason: runc.reason }, 'local customer edge simulated: this machine cannot run real pods');
  return { sites, close: async () => void (await Promise.all(agents.map((a) => a.close()))) };
}
