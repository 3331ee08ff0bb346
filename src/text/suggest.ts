/**
 * How many edits a typo of `word` may hold and still get a hint: 1 for words of up to 4
 * letters, 2 up to 8, 3 beyond. The one threshold of every "did you mean" (config keys and env
 * vars, policy, cases and intents keys, Home Assistant services and areas): short words get
 * one edit so `id` does not suggest `ip`, long ones a few so `allow_tools` finds
 * `allowed_tools`.
 */
export function maxSuggestEdits(word: string): number {
  return word.length <= 4 ? 1 : word.length <= 8 ? 2 : 3;
}

/**
 * The candidate closest to `word` by edit distance ({@link editDistance}), if it is close
 * enough to be a typo ({@link maxSuggestEdits}): the one "did you mean" of every reader of
 * names an operator types. Case is ignored; on a tie the first candidate wins. A candidate
 * whose length differs by more than the allowed edits is skipped unmeasured, so a long word
 * costs nothing against short names.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const allowed = maxSuggestEdits(word);
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance: edits plus swaps of adjacent letters (`hots`/`host`). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
