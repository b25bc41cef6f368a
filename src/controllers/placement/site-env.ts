import type { EnvVar } from '../../api/pod-spec-types.js';
import type { PlacedSite } from './placed-site.js';

/** Site labels (PLATFORM-FACTS) passed to containers, by environment variable. */
const SITE_FACT_LABELS: Readonly<Record<string, string>> = {
  SVC_IO_REGION: 'svc.io/region',
  SVC_IO_COUNTRY: 'svc.io/country',
  SVC_IO_PROVIDER: 'svc.io/provider',
  SVC_IO_FLEET: 'svc.io/fleet',
};

/** The variables describing a site: its name and type always, region, country, provider and fleet when the site has those labels. */
export function siteEnv(site: PlacedSite): EnvVar[] {
  const env: EnvVar[] = [
    { name: 'SVC_IO_SITENAME', value: site.name },
    { name: 'SVC_IO_SITETYPE', value: site.type },
  ];
  for (const [name, label] of Object.entries(SITE_FACT_LABELS)) {
    const value = site.labels[label];
    if (value !== undefined) env.push({ name, value });
  }
  return env;
}

/** A container's env with the site's variables last, replacing any of the same names (the platform's facts win). */
export function withSiteEnv(env: readonly EnvVar[] | null | undefined, site: readonly EnvVar[]): EnvVar[] {
  const names = new Set(site.map((v) => v.name));
  return [...(env ?? []).filter((v) => !names.has(v.name)), ...site];
}
