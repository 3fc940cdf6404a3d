/**
 * Fuzzy matching for the picker: the query's characters must appear in the text in order
 * (case-insensitive), and the best way to place them is the one that keeps them together and
 * on word starts. `web` ranks `prod/web-1` above `prod/hello-world-backup`.
 */

export interface FuzzyMatch {
  /** Higher is better; only comparable between matches of the same query. */
  score: number;
  /** Where each query character landed in the text, ascending. */
  positions: number[];
}

/** Points for each matched character. */
const CHAR = 1;
/** A character right after the previous match. */
const CONSECUTIVE = 6;
/** A character at a word start: the text's start, after a separator, or a lower-to-upper case step. */
const WORD_START = 8;
/** Per text character skipped between two matched characters, up to GAP_MAX per gap. */
const GAP = 1;
const GAP_MAX = 8;
/** Per text character before the first match, up to LEADING_MAX. */
const LEADING = 0.5;
const LEADING_MAX = 4;

const SEPARATORS = new Set(['/', ':', '-', '_', '.', ' ', '#', '@']);

function isWordStart(text: string, index: number): boolean {
  if (index === 0) return true;
  const before = text[index - 1];
  if (SEPARATORS.has(before)) return true;
  const here = text[index];
  return before.toLowerCase() === before && before.toUpperCase() !== before && here.toUpperCase() === here && here.toLowerCase() !== here;
}

/**
 * The best placement of `query` in `text`, or undefined when its characters do not all appear
 * in order. An empty query matches everything with score 0. Runs in O(query x text).
 */
export function fuzzyMatch(query: string, text: string): FuzzyMatch | undefined {
  const q = Array.from(query.toLowerCase());
  const chars = Array.from(text);
  const t = chars.map((c) => c.toLowerCase());
  const shown = chars.join('');
  if (q.length === 0) return { score: 0, positions: [] };
  if (q.length > t.length) return undefined;

  const n = t.length;
  const none = Number.NEGATIVE_INFINITY;
  // best[i][j]: the best score with query[0..i] placed and query[i] at text[j]; from[i][j]: where query[i-1] sat.
  const best: number[][] = [];
  const from: number[][] = [];
  const bonus = t.map((_, j) => CHAR + (isWordStart(shown, j) ? WORD_START : 0));

  for (let i = 0; i < q.length; i++) {
    const row = new Array<number>(n).fill(none);
    const back = new Array<number>(n).fill(-1);
    // Over the previous placements at least two characters back: the best with its gap
    // penalty so far (one GAP per skipped character), and the best before any penalty.
    let decayed = none;
    let decayedAt = -1;
    let raw = none;
    let rawAt = -1;
    for (let j = 0; j < n; j++) {
      if (i > 0 && j >= 2) {
        const candidate = best[i - 1][j - 2];
        decayed -= GAP;
        if (candidate - GAP >= decayed) {
          decayed = candidate - GAP;
          decayedAt = j - 2;
        }
        if (candidate > raw) {
          raw = candidate;
          rawAt = j - 2;
        }
      }
      if (t[j] !== q[i]) continue;
      if (i === 0) {
        row[j] = bonus[j] - Math.min(j * LEADING, LEADING_MAX);
        continue;
      }
      // A gap costs GAP per skipped character, never more than GAP_MAX.
      const capped = raw - GAP_MAX;
      const viaGap = Math.max(decayed, capped);
      const viaGapAt = decayed >= capped ? decayedAt : rawAt;
      const adjacent = j >= 1 ? best[i - 1][j - 1] + CONSECUTIVE : none;
      if (adjacent === none && viaGap === none) continue;
      if (adjacent >= viaGap) {
        row[j] = adjacent + bonus[j];
        back[j] = j - 1;
      } else {
        row[j] = viaGap + bonus[j];
        back[j] = viaGapAt;
      }
    }
    best.push(row);
    from.push(back);
  }

  const last = best[q.length - 1];
  let end = -1;
  for (let j = 0; j < n; j++) if (last[j] !== none && (end < 0 || last[j] > last[end])) end = j;
  if (end < 0) return undefined;
  const positions = new Array<number>(q.length);
  for (let i = q.length - 1, j = end; i >= 0; i--) {
    positions[i] = j;
    j = from[i][j];
  }
  return { score: last[end], positions };
}

/**
 * The items whose text matches, best first; equal scores keep the shorter text first, then
 * the items' own order. An empty query keeps every item in its order.
 */
export function fuzzyFilter<T>(items: readonly T[], query: string, textOf: (item: T) => string): Array<{ item: T; match: FuzzyMatch }> {
  const scored: Array<{ item: T; match: FuzzyMatch; index: number; length: number }> = [];
  items.forEach((item, index) => {
    const text = textOf(item);
    const match = fuzzyMatch(query, text);
    if (match) scored.push({ item, match, index, length: text.length });
  });
  if (query.length > 0) scored.sort((a, b) => b.match.score - a.match.score || a.length - b.length || a.index - b.index);
  return scored.map(({ item, match }) => ({ item, match }));
}
