import { errorCodes, type FastifyInstance } from 'fastify';
import { formatFieldPath, readJsonText } from '../../text/index.js';
import { HttpApiError } from './errors.js';

/**
 * Replaces fastify's JSON body parser with the one JSON ladder (`readJsonText`), refusing as
 * 400 `invalid_request` in the route family's error shape:
 * - a body nested deeper than MAX_NESTING_DEPTH (the ladder's default), found by a linear scan of the text before
 *   `JSON.parse`, so nothing downstream (validation, policy, audit, dispatch) ever recurses
 *   over a hostile depth;
 * - a `__proto__` key, or `constructor` holding `prototype`, anywhere in the body, named with
 *   its path. fastify's own check says only "not valid JSON", which is untrue.
 * Empty and malformed bodies keep fastify's errors (`FST_ERR_CTP_*`, mapped in error-map).
 * Register before any plugin, so every route inherits it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
      return;
    }
    // a leading byte order mark is dropped, as fastify's own parser (secure-json-parse) does
    const read = readJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (read.ok) {
      done(null, read.value);
      return;
    }
    if (read.why === 'syntax') {
      done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
      return;
    }
    if (read.why === 'deep') {
      const issues = `body nests deeper than ${read.max} levels at offset ${read.offset}`;
      done(new HttpApiError('invalid_request', { issues }), undefined);
      return;
    }
    const path = formatFieldPath(read.path);
    const key =
      read.key === '__proto__' ? 'a `__proto__` key' : 'a `constructor` key holding `prototype`';
    const issues = `body contains ${key} at ${path}, which is not allowed`;
    const why = `${key} is not allowed: it could reach an object's prototype`;
    done(
      new HttpApiError('invalid_request', { issues }, { details: [{ path, message: why }] }),
      undefined,
    );
  });
}
