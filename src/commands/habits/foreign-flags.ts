// The flags virtctl and kubectl users type that vconsole spells otherwise (or keeps to another
// command): commander's "unknown option" gets the vconsole spelling as its one "did you mean",
// also for a near miss (`--proxy-onyl`), which commander cannot suggest from a command that lacks it.

/** A virtctl or kubectl flag, and what says the same here. */
const FOREIGN_FLAGS: Readonly<Record<string, string>> = {
  '--proxy-only': 'vconsole vnc --proxy-only, or vconsole proxy',
  '--address': '--listen',
  '--vnc-type': '--viewer',
  '--vnc-path': '--viewer PATH',
  '--timeout': 'vconsole console --timeout (or --wait)',
  '--output': '-o on vconsole list and viewers',
  '-o': '-o on vconsole list and viewers',
  '--request-timeout': 'vconsole console --wait',
  '--cluster': '--context',
  '--user': '--context',
  '--server': '--kubeconfig (or --context)',
  '--port-forward': 'vconsole proxy',
};

/** Edit distance (insert, delete, replace, swap of neighbours) up to the small numbers a typo makes. */
function typoDistance(a: string, b: string): number {
  // d[i][j]: the distance between a's first i characters and b's first j.
  const d = Array.from({ length: a.length + 1 }, (_row, i) =>
    Array.from({ length: b.length + 1 }, (_cell, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * commander's message for an unknown option, with the vconsole spelling when the flag is a
 * virtctl or kubectl one (or two typos from one) and commander had nothing to suggest. A
 * spelling that is a flag (`--listen`) is suggested only where `offers` says the command has
 * it: `list --address` is no place for --listen. Spellings that name a command are kept.
 */
export function withForeignFlagHint(message: string, offers?: (flag: string) => boolean): string {
  // commander's own guess, by spelling alone (`--cluster`: "Did you mean --listen?"), gives way
  // to what the virtctl or kubectl flag means; a near miss keeps it (`--sahre`: --share).
  const parsed = /^(unknown option '([^'=]+)(?:=[^']*)?')( \(Did you mean [^)]*\?\))?$/.exec(message);
  if (!parsed) return message;
  const [, unknown, flag, guess] = parsed;
  if (guess && !FOREIGN_FLAGS[flag]) return message;
  // A near miss of a long flag only: every short flag is two edits from -o.
  const nearMiss = () =>
    flag.startsWith('--')
      ? Object.keys(FOREIGN_FLAGS).find((foreign) => foreign.startsWith('--') && typoDistance(flag, foreign) <= 2)
      : undefined;
  const known = FOREIGN_FLAGS[flag] ? flag : nearMiss();
  if (!known) return message;
  const suggested = /^--[a-z-]+/.exec(FOREIGN_FLAGS[known])?.[0];
  if (suggested && offers && !offers(suggested)) return unknown;
  return known === flag
    ? `${unknown} (Did you mean ${FOREIGN_FLAGS[known]}?)`
    : `${unknown} (Did you mean ${known}? here that is ${FOREIGN_FLAGS[known]})`;
}
