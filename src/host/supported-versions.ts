/** Oldest host release supported. */
const MIN_HOST_VERSION = [2026, 4, 24] as const;
/** Newest host year.month supported (any day/patch of it). */
const MAX_HOST_MONTH = [2026, 9] as const;

/** The supported range as operators read it. */
export const SUPPORTED_RANGE = "2026.4.24 – 2026.9.x";

/** True for versions from 2026.4.24 through any 2026.9.x. */
export function isSupportedHostVersion(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [minY, minM, minD] = MIN_HOST_VERSION;
  const atLeast = y > minY || (y === minY && (mo > minM || (mo === minM && d >= minD)));
  const atMost = y < MAX_HOST_MONTH[0] || (y === MAX_HOST_MONTH[0] && mo <= MAX_HOST_MONTH[1]);
  return atLeast && atMost;
}
