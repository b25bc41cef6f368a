import { fieldError, StatusError, type StatusCause } from '../apimachinery/errors/status-error.js';
import { Quantity, QuantityError } from '../apimachinery/quantity/quantity.js';
import { dns1035LabelProblems, dns1123LabelProblems, dns1123SubdomainProblems } from '../apimachinery/validation/names.js';
import { validateLabels } from '../apimachinery/validation/object-meta.js';
import { SITE_NAME_LABEL, SITE_RUNTIMES, SITE_TYPE_LABEL, SITE_TYPE_LABEL_VALUE, type SiteRuntime, type SiteType } from '../site-api/site-model.js';

/** One node of a site as registration gives it; quantities in Kubernetes' canonical form. */
export interface NodeRequest {
  readonly name: string;
  readonly cpu: string;
  readonly memory: string;
}

export interface SiteRequest {
  readonly name: string;
  readonly type: SiteType;
  /** The given labels plus `svc.io/siteName` and `svc.io/siteType`. */
  readonly labels: Readonly<Record<string, string>>;
  readonly nodes: readonly NodeRequest[];
  /** Regional edge only: per-vK8s limits on the site. */
  readonly quota?: { readonly cpu: string; readonly memory: string };
  /** How the site runs pods (`simulated` when the agent did not say). */
  readonly runtime: SiteRuntime;
  /** runc only: the version the agent gave. */
  readonly runtimeVersion?: string;
}

export interface RegistrationRequest {
  readonly agent: string;
  readonly csr: string;
  readonly sites: readonly SiteRequest[];
}

const MAX_SITES_PER_REGISTRATION = 20_000;
const MAX_NODES_PER_SITE = 1000;
const KIND = { kind: 'SiteRegistration', group: 'sites.edgeplane.io' };
/** A runtime version as runtimes print theirs (`1.1.5`, `1.1.5+ds1-1`). */
const RUNTIME_VERSION = /^[A-Za-z0-9][A-Za-z0-9.+_~-]{0,63}$/;

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);

/** A positive quantity in canonical form, or the problem. */
function positiveQuantity(value: unknown, path: string, causes: StatusCause[]): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    causes.push(fieldError.required(path));
    return '';
  }
  try {
    const quantity = Quantity.parse(String(value));
    if (quantity.nanos <= 0n) causes.push(fieldError.invalid(path, String(value), 'must be greater than 0'));
    return quantity.toString();
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    causes.push(fieldError.invalid(path, String(value), error.message));
    return '';
  }
}

function parseNodes(raw: unknown, site: string, path: string, causes: StatusCause[]): NodeRequest[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    causes.push(fieldError.required(path, 'a site has at least one node'));
    return [];
  }
  if (raw.length > MAX_NODES_PER_SITE) causes.push(fieldError.invalid(path, raw.length, `must have at most ${MAX_NODES_PER_SITE} nodes`));
  const seen = new Set<string>();
  return raw.map((entry, i) => {
    const node = asObject(entry) ?? {};
    const at = `${path}[${i}]`;
    const name = typeof node['name'] === 'string' ? node['name'] : '';
    for (const p of dns1123LabelProblems(name)) causes.push(fieldError.invalid(`${at}.name`, name, p));
    for (const p of dns1123SubdomainProblems(`${site}-${name}`)) causes.push(fieldError.invalid(`${at}.name`, `${site}-${name}`, `the Node name ${p}`));
    if (seen.has(name)) causes.push(fieldError.duplicate(`${at}.name`, name));
    seen.add(name);
    return { name, cpu: positiveQuantity(node['cpu'], `${at}.cpu`, causes), memory: positiveQuantity(node['memory'], `${at}.memory`, causes) };
  });
}

function parseLabels(raw: unknown, name: string, type: SiteType, path: string, causes: StatusCause[]): Record<string, string> {
  const given = raw === undefined || raw === null ? {} : asObject(raw);
  if (given === undefined || Object.values(given).some((v) => typeof v !== 'string')) {
    causes.push(fieldError.invalid(path, raw, 'must be a map of strings'));
    return {};
  }
  const labels = given as Record<string, string>;
  causes.push(...validateLabels(labels, path));
  const fixed = { [SITE_NAME_LABEL]: name, [SITE_TYPE_LABEL]: SITE_TYPE_LABEL_VALUE[type] };
  for (const [key, value] of Object.entries(fixed)) {
    if (labels[key] !== undefined && labels[key] !== value) causes.push(fieldError.forbidden(`${path}[${key}]`, `is set by registration to ${JSON.stringify(value)}`));
  }
  return { ...labels, ...fixed };
}

/** The site's runtime (absent: simulated) and, for runc, its version. */
function parseRuntime(site: Json, at: string, causes: StatusCause[]): Pick<SiteRequest, 'runtime' | 'runtimeVersion'> {
  const raw = site['runtime'] ?? 'simulated';
  const runtime = SITE_RUNTIMES.find((r) => r === raw);
  if (runtime === undefined) causes.push(fieldError.notSupported(`${at}.runtime`, raw, SITE_RUNTIMES));
  const version = site['runtimeVersion'];
  if (version === undefined || version === null) return { runtime: runtime ?? 'simulated' };
  if (runtime !== 'runc') causes.push(fieldError.forbidden(`${at}.runtimeVersion`, 'only a runc site reports its runtime version'));
  else if (typeof version !== 'string' || !RUNTIME_VERSION.test(version)) {
    causes.push(fieldError.invalid(`${at}.runtimeVersion`, version, 'must be 1-64 characters of letters, digits and ".+_~-", starting with a letter or digit'));
  }
  return { runtime: runtime ?? 'simulated', ...(typeof version === 'string' ? { runtimeVersion: version } : {}) };
}

function parseSite(raw: unknown, i: number, tokenType: SiteType, causes: StatusCause[]): SiteRequest {
  const site = asObject(raw) ?? {};
  const at = `sites[${i}]`;
  const name = typeof site['name'] === 'string' ? site['name'] : '';
  for (const p of dns1035LabelProblems(name)) causes.push(fieldError.invalid(`${at}.name`, name, p));
  if (site['type'] !== tokenType) causes.push(fieldError.notSupported(`${at}.type`, site['type'] ?? '', [tokenType]));
  const nodes = parseNodes(site['nodes'], name, `${at}.nodes`, causes);
  const labels = parseLabels(site['labels'], name, tokenType, `${at}.labels`, causes);
  let quota: SiteRequest['quota'];
  if (site['quota'] !== undefined && site['quota'] !== null) {
    if (tokenType !== 'REGIONAL_EDGE') causes.push(fieldError.forbidden(`${at}.quota`, 'only regional-edge sites have a quota'));
    const q = asObject(site['quota']) ?? {};
    quota = { cpu: positiveQuantity(q['cpu'], `${at}.quota.cpu`, causes), memory: positiveQuantity(q['memory'], `${at}.quota.memory`, causes) };
  }
  return { name, type: tokenType, labels, nodes, ...(quota === undefined ? {} : { quota }), ...parseRuntime(site, at, causes) };
}

/**
 * Pure: the body of `POST /api/sites/v1/register`, checked against the token's site type.
 * Every problem is collected; any makes a 422 Invalid Status with one cause per problem
 * (kube's field paths: `sites[0].nodes[1].cpu`). Unknown fields are ignored.
 */
export function parseRegistrationRequest(body: unknown, tokenType: SiteType): RegistrationRequest {
  const b = asObject(body);
  if (b === undefined) throw StatusError.badRequest('the request body must be a JSON object');
  const causes: StatusCause[] = [];
  const agent = typeof b['agent'] === 'string' ? b['agent'] : '';
  for (const p of dns1123SubdomainProblems(agent)) causes.push(fieldError.invalid('agent', agent, p));
  const csr = typeof b['csr'] === 'string' ? b['csr'] : '';
  if (!csr.includes('-----BEGIN CERTIFICATE REQUEST-----')) causes.push(fieldError.required('csr', 'a PEM PKCS#10 certificate request'));
  const rawSites = b['sites'];
  let sites: SiteRequest[] = [];
  if (!Array.isArray(rawSites) || rawSites.length === 0) causes.push(fieldError.required('sites', 'at least one site'));
  else if (rawSites.length > MAX_SITES_PER_REGISTRATION) causes.push(fieldError.invalid('sites', rawSites.length, `must have at most ${MAX_SITES_PER_REGISTRATION} sites`));
  else {
    sites = rawSites.map((raw, i) => parseSite(raw, i, tokenType, causes));
    const seen = new Set<string>();
    sites.forEach((site, i) => {
      if (seen.has(site.name)) causes.push(fieldError.duplicate(`sites[${i}].name`, site.name));
      seen.add(site.name);
    });
  }
  if (causes.length > 0) throw StatusError.invalid(KIND, agent, causes.slice(0, 100));
  return { agent, csr, sites };
}
