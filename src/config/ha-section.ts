import { z } from 'zod';
import { fieldMeta, httpUrlField, secretField } from './fields.js';

/**
 * The one definition of the Home Assistant settings (issue 30), for the `home_assistant` tool
 * (its actions `call_service` and `entities`): the config file's `ha:` section
 * ({@link ConfigSchema}) and the client library's reader (`src/clients/home-assistant/config.ts`)
 * are both this schema. A top-level section (not under `tools`) so that the reference project's
 * `CAESAR_HA__*` env names keep working.
 */
export const HA_SECTION = 'ha';

export const HaSectionSchema = z.strictObject({
  url: httpUrlField()
    .optional()
    .describe(
      'Base URL of Home Assistant, such as `http://homeassistant.local:8123`. Unset: the Home Assistant tools start, and answer `not_configured` naming this key.',
    )
    .register(fieldMeta, { example: 'http://homeassistant.local:8123' }),
  token: secretField(
    'token',
    'Long-lived access token (Home Assistant: your profile -> Security -> Long-lived access tokens). Never printed; prefer `CAESAR_HA__TOKEN_FILE`.',
  ),
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(600)
    .default(10)
    .describe(
      'Seconds one request to Home Assistant may take; a call is also cut at its own deadline.',
    ),
  verify_ssl: z
    .boolean()
    .default(true)
    .describe(
      "Check Home Assistant's TLS certificate. Turn off only for a self-signed certificate on your own network.",
    ),
});
