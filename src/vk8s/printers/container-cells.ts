import type { ContainerView } from './views.js';

/** kube's `layoutContainerCells`: container names and images, each joined by commas. */
export function containerCells(containers: readonly ContainerView[] | undefined): [names: string, images: string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}
