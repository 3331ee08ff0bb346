// The tool catalog (ADR 0090): `<data_dir>/catalog.yaml`, read without importing anything,
// written by `caesar catalog`, held against the live specs by `caesar catalog check`.
export {
  entryOfSpec,
  entryWhere,
  isPlanned,
  mcpEntry,
  plannedEntry,
  ToolEntrySchema,
} from './entry.js';
export type { Catalog, McpServerEntry, ToolEntry } from './entry.js';
export { catalogPath, readCatalog, writeCatalog } from './file.js';
export { describeDrift, driftOf } from './drift.js';
export type { Drift } from './drift.js';
