import type { FastifyInstance } from 'fastify';
import { findPrototypeKey, jsonTextTooDeepAt, MAX_NESTING_DEPTH } from '../../text/index.js';
import { HttpApiError } from './errors.js';
import { formatFieldPath as formatPath } from '../../text/index.js';

/**
 * Replaces fastify's JSON body parser with one that refuses, as 400 `invalid_request` in the
 * route family's error shape:
 * - a body nested deeper than MAX_NESTING_DEPTH, found by a linear scan of the text before
 *   `JSON.parse`, so nothing downstream (validation, policy, audit, dispatch) ever recurses
 *   over a hostile depth;
 * - a `__proto__` key, or `constructor` holding `prototype`, anywhere in the body, named with
 *   its path. fastify's own check says only "not valid JSON", which is untrue.
 * Empty and malformed bodies keep fastify's errors (`FST_ERR_CTP_*`, mapped in error-map).
 * Register before any plugin, so every route inherits it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // 'ignore': the prototype keys are found below, with their path.
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    const at = jsonTextTooDeepAt(text, MAX_NESTING_DEPTH);
    if (at !== undefined) {
      const message = `body nests deeper than ${MAX_NESTING_DEPTH} levels at offset ${at}`;
      done(new HttpApiError('invalid_request', message), undefined);
      return;
    }
    void parseJson(req, text, (err, value) => {
      if (err !== null) {
        done(err, undefined);
        return;
      }
      const found = findPrototypeKey(value);
      if (found === undefined) {
        done(null, value);
        return;
      }
      const path = formatPath(found.path);
      const key =
        found.key === '__proto__' ? 'a `__proto__` key' : 'a `constructor` key holding `prototype`';
      const message = `body contains ${key} at ${path}, which is not allowed`;
      const why = `${key} is not allowed: it could reach an object's prototype`;
      done(
        new HttpApiError('invalid_request', message, { details: [{ path, message: why }] }),
        undefined,
      );
    });
  });
}
