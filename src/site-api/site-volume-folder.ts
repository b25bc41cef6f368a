/**
 * The folder of a claim's volume on a site, under the site's persistent-volume root (a runc
 * site's `<home>/runc/<site>/persistent-volumes`): `pvc-<claim uid>`, so a claim deleted and
 * made again under the same name gets a new, empty folder. The PersistentVolume's `local.path`
 * is `/persistent-volumes/<this folder>`.
 */
export function siteVolumeFolder(claimUid: string): string {
  return `pvc-${claimUid}`;
}

const FOLDER = /^pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `name` is a claim's volume folder (only those does a site ever remove). */
export function isSiteVolumeFolder(name: string): boolean {
  return FOLDER.test(name);
}
