/** "Did you mean …?" for a name that names nothing: the known names a slip of the keyboard away. */

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`; stops counting past `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const replace = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j] + 1, row[j - 1] + 1, replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2] + 1);
      row.push(best);
    }
    if (Math.min(...row) > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length];
}

/**
 * The known names closest to `typed`, nearest first (at most `max`): those within a third of its
 * length in edits (at least one, at most three), a different case counting as no edit.
 */
export function nearNames(typed: string, known: Iterable<string>, max = 3): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  const scored: { name: string; distance: number }[] = [];
  for (const name of new Set(known)) {
    if (name === typed) continue;
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase(), limit);
    if (distance <= limit) scored.push({ name, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** `did you mean "web1"?`, `did you mean "web1" or "web2"?`; undefined when nothing is near. */
export function didYouMean(typed: string, known: Iterable<string>): string | undefined {
  const near = nearNames(typed, known).map((name) => `"${name}"`);
  if (near.length === 0) return undefined;
  const words = near.length < 2 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`;
  return `did you mean ${words}?`;
}
