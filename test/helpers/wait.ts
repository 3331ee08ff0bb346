/**
 * Polls `check` until it returns a truthy value or `timeoutMs` passes; for conditions that
 * have no event to await. Fails with `what` so a broken condition names itself.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 5000,
  intervalMs = 10,
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
