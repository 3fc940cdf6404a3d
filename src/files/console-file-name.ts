/** File names made from a console's name: screenshots, recordings. */

/** A console's name in file-name-safe characters: no slash, no leading dot. */
export function consoleFileStem(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return safe || 'console';
}

/** `NAME-YYYYMMDD-HHMMSS` in local time: files made over a session sort by time. */
export function timestampedStem(name: string, at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const day = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}`;
  const time = `${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
  return `${consoleFileStem(name)}-${day}-${time}`;
}
