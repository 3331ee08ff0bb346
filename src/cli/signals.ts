/**
 * Runs `stop` on the first SIGINT or SIGTERM and resolves when it is done; a second signal
 * exits at once (130 for SIGINT, 143 for SIGTERM), for an operator who does not want to
 * wait. Rejects when `stop` does.
 */
export function stopOnSignal(stop: () => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const onSignal = () => {
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      stop().then(resolve, reject);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
