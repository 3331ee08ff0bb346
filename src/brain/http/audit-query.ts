import { z } from 'zod';
import { AuditQuerySchema, type AuditFilter, type AuditQuery } from '../../audit/index.js';

/**
 * `GET /v1/audit` query strings, in the snake_case of the wire, onto src/audit's
 * `AuditQuery`. The field rules are AuditQuerySchema's own (reused, not copied), so an
 * invalid filter fails here with the query parameter's name as its path.
 */

const shape = AuditQuerySchema.shape;

/**
 * A query parameter that may appear once (a repeated one arrives as an array), checked by
 * `schema`. The rules accept strings (a `since` may also be a Date in code, never here).
 */
const once = <T>(schema: z.ZodType<T, unknown>) =>
  z.string({ error: 'expected one value' }).pipe(schema as z.ZodType<T, string>);

const wholeNumber = z
  .string({ error: 'expected one value' })
  .regex(/^\d{1,15}$/, 'expected a whole number')
  .transform(Number);

/** `type=a&type=b` and `type=a,b` both mean [a, b]. */
const types = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  )
  .pipe(shape.types.unwrap());

const filterParams = {
  since: once(shape.since.unwrap()).optional(),
  until: once(shape.until.unwrap()).optional(),
  type: types.optional(),
  tool: once(z.string()).optional(),
  decision_id: once(z.string()).optional(),
  session_id: once(z.string()).optional(),
  outcome: once(shape.outcome.unwrap()).optional(),
  actor: once(z.string()).optional(),
  principal: once(z.string()).optional(),
};

const AuditFilterParamsSchema = z.strictObject(filterParams);

const AuditQueryParamsSchema = z.strictObject({
  ...filterParams,
  after_seq: wholeNumber.pipe(shape.afterSeq.unwrap()).optional(),
  order: once(shape.order.unwrap()).optional(),
  limit: wholeNumber.pipe(shape.limit.unwrap()).optional(),
});

type FilterParams = z.output<typeof AuditFilterParamsSchema>;

function toFilter(p: FilterParams): AuditFilter {
  const out: AuditFilter = {};
  if (p.since !== undefined) out.since = p.since;
  if (p.until !== undefined) out.until = p.until;
  if (p.type !== undefined && p.type.length > 0) out.types = p.type;
  if (p.tool !== undefined) out.tool = p.tool;
  if (p.decision_id !== undefined) out.decisionId = p.decision_id;
  if (p.session_id !== undefined) out.sessionId = p.session_id;
  if (p.outcome !== undefined) out.outcome = p.outcome;
  if (p.actor !== undefined) out.actor = p.actor;
  if (p.principal !== undefined) out.principal = p.principal;
  return out;
}

/** `GET /v1/audit` parameters -> AuditQuery. */
export const AuditQueryParams = AuditQueryParamsSchema.transform((p): AuditQuery => {
  const out: AuditQuery = toFilter(p);
  if (p.after_seq !== undefined) out.afterSeq = p.after_seq;
  if (p.order !== undefined) out.order = p.order;
  if (p.limit !== undefined) out.limit = p.limit;
  return out;
});

/** `GET /v1/audit/counts` parameters -> AuditFilter (no paging keys). */
export const AuditFilterParams = AuditFilterParamsSchema.transform(toFilter);
