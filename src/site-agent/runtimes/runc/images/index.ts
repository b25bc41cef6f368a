/**
 * The images of a runc site: its store of imported OCI images (archives and layouts verified
 * by digest, unpacked into shared read-only roots), the host-image roots of `--host-image`,
 * and each container instance's root over them (overlayfs).
 */
export { SiteImages } from './site-images.js';
export { ImageStore, siteImageStoreDir, type ResolvedImage } from './image-store.js';
export { hostImagePlan, inspectHost, prepareRoot } from './host-image.js';
export { parseImageReference } from './image-reference.js';
export { unmountAllUnder } from './container-root.js';
