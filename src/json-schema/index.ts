// The one home of the JSON Schema engine (ajv, patterns on RE2; ADR 0079): every check of a
// schema a tool announced, in the brain and in a module tool's worker.
export { SchemaValidator, compileJsonSchema } from './validator.js';
