/**
 * The machine's primitives a site uses, with no domain of their own: iproute2's `ip`,
 * nftables' `nft`, the mount table, tmpfs mounts, cgroup folders, where programs are, and
 * paths below a root walked by descriptor without following symlinks.
 */
export { IpCommand } from './ip-command.js';
export { NftCommand, type NftJsonItem } from './nft-command.js';
export { isMountPoint, mountsUnder, parseMountInfo, readMountTable } from './mount-table.js';
export { mountTmpfs, unmount } from './tmpfs-mounts.js';
export { cgroupExists, hostPidMax, limitPids, removeCgroup, sitePidsCeiling } from './cgroup-tree.js';
export { executable, onPath, type Program } from './programs.js';
export { type HeldPath, makeDirsBeneath, makeMountPointBeneath, openBeneath, statBeneath } from './path-beneath.js';
