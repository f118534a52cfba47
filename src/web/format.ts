/** Small formatting shared by the owner's pages: level names, times, reach. */
import type { z } from 'zod';
import type { Container, Key } from '../operations/schemas';

export type KeyView = z.infer<typeof Key>;
export type ContainerView = z.infer<typeof Container>;

export const LEVEL_LABEL: Record<KeyView['level'], string> = {
  read: 'Read',
  suggest: 'Read & write',
  manage: 'Full access',
};

/** "2026-01-01 12:00 UTC", or `none` for a missing time. */
export const when = (isoTime: string | null | undefined, none = 'never'): string =>
  isoTime ? `${isoTime.slice(0, 16).replace('T', ' ')} UTC` : none;

/** The key's reach in words: "All containers" or the names of its ticked containers. */
export function reachText(key: KeyView, containers: ContainerView[]): string {
  if (key.all_views) return 'All containers';
  const names = key.containers.map((id) => containers.find((c) => c.id === id)?.name ?? id);
  return names.length ? names.join(', ') : 'No containers';
}

/** The expiry choices of the key screen; a rotated key's own duration is added when it is another. */
export const EXPIRY_CHOICES: [number | null, string][] = [
  [null, 'Never'],
  [30, '30 days'],
  [90, '90 days'],
  [365, 'One year'],
];
