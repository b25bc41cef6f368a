/**
 * Every error of the site's image store: a bad name, an archive or layout that is not an OCI
 * image, a blob that does not match its digest, an image that cannot be unpacked or removed.
 * Its message is meant for the person who ran `edgeplane image …`.
 */
export class ImageStoreError extends Error {}
