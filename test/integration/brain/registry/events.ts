import type { Registry } from '../../../../src/brain/registry/index.js';
import type { RegistryEvents } from '../../../../src/brain/registry/events.js';

/**
 * Resolves with the next `event` whose payload matches, or fails after `timeoutMs` naming
 * what it waited for. Register it before the action that should cause the event.
 */
export function nextEvent<K extends keyof RegistryEvents>(
  registry: Registry,
  event: K,
  match: (payload: RegistryEvents[K][0]) => boolean = () => true,
  timeoutMs = 5000,
): Promise<RegistryEvents[K][0]> {
  return new Promise((resolve, reject) => {
    const listener = (payload: RegistryEvents[K][0]) => {
      if (!match(payload)) return;
      clearTimeout(timer);
      registry.off(event, listener as never);
      resolve(payload);
    };
    const timer = setTimeout(() => {
      registry.off(event, listener as never);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for registry event ${event}`));
    }, timeoutMs);
    registry.on(event, listener as never);
  });
}
