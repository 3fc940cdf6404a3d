/**
 * The time of day as vconsole shows it: in the TUI's event log and on the demo console's
 * screen. A leaf of its own so neither of those depends on the other.
 */

/** `14:03:07` in local time, from epoch milliseconds or a Date. */
export function formatClock(time: number | Date): string {
  const date = new Date(time);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
