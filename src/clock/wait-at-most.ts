// A wait with a bound, as stopping code needs it: one home (issue 30), which leaves no timer
// behind to hold the process open after the wait (a bare `Promise.race` with a `setTimeout`
// did: a brain with JetStream took 3.5 s to exit after its last step). node: built-ins only.

/**
 * Waits for `p` at most `ms`. Resolves true when `p` settled (fulfilled or rejected) in time,
 * false when the time ran out first; never rejects, and clears its timer either way.
 */
export async function waitAtMost(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = p.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([
      settled,
      new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
