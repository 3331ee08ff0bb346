import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CaesarError } from '../../errors/index.js';
import { writeFileAtomic } from '../../files/index.js';
import { placeZodFields } from '../../protocol/index.js';
import {
  formatYamlIssue,
  readYaml,
  yamlDocumentText,
  type YamlDocument,
  type YamlIssue,
} from '../../text/index.js';
import { CATALOG_LIMITS, CatalogSchema, EMPTY_CATALOG, type Catalog } from './entry.js';

/** The catalog's file name in the data dir. */
export const CATALOG_FILE = 'catalog.yaml';

/** `<dataDir>/catalog.yaml`. */
export function catalogPath(dataDir: string): string {
  return join(dataDir, CATALOG_FILE);
}

const HEADER = [
  '# CAESAR tool catalog (docs/legion.md, "Catalog"): one entry per tool this operator has.',
  '# Written by `caesar catalog add|remove`; `caesar catalog check` and `caesar up` refuse an',
  "# entry that no longer matches its module's spec.",
  '',
].join('\n');

/**
 * Reads the catalog; a missing file is an empty catalog. Imports nothing: the entries are
 * read as data, within the catalog's bounds.
 * @throws {CaesarError} `catalog_invalid`, naming the file, each entry and field at fault
 *   (`catalog.yaml:7:11: tools[1].tags[0] (entry 'weather'): expected a tag …`)
 */
export async function readCatalog(file: string): Promise<Catalog> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_CATALOG;
    throw invalid(file, [`cannot be read: ${(err as Error).message}`], err);
  }
  return parseCatalog(file, text);
}

/** The catalog in `text` (the contents of `file`); see {@link readCatalog}. */
export function parseCatalog(file: string, text: string): Catalog {
  const doc = readYaml(text, { maxBytes: CATALOG_LIMITS.bytes, maxAliases: 0 });
  if (doc.issues.length > 0)
    throw invalid(
      file,
      doc.issues.map((i) => formatYamlIssue(file, i)),
    );
  if (doc.value === null) return EMPTY_CATALOG;
  const parsed = CatalogSchema.safeParse(doc.value);
  if (!parsed.success) {
    const issues = placeZodFields((...a) => doc.issueAt(...a), parsed.error);
    throw invalid(
      file,
      issues.map((i) => formatYamlIssue(file, withEntry(doc, i))),
    );
  }
  const dupes = duplicateNames(doc, parsed.data);
  if (dupes.length > 0)
    throw invalid(
      file,
      dupes.map((i) => formatYamlIssue(file, i)),
    );
  return parsed.data;
}

/** Writes the catalog atomically, readable by its owner alone as the data dir's other files. */
export async function writeCatalog(file: string, catalog: Catalog): Promise<void> {
  const checked = CatalogSchema.parse(catalog);
  // an entry's tags and extra on one line each: `tags: [tool, web]`
  await writeFileAtomic(file, HEADER + yamlDocumentText(checked, 3), 0o600);
}

/** `tools[1].tags[0]` becomes `tools[1].tags[0] (entry 'weather')` when the entry has a name. */
function withEntry(doc: YamlDocument, issue: YamlIssue): YamlIssue {
  const m = /^tools\[(\d+)\]/.exec(issue.path);
  if (m === null) return issue;
  const tools = (doc.value as { tools?: unknown }).tools;
  const entry = Array.isArray(tools) ? (tools[Number(m[1])] as { name?: unknown }) : undefined;
  const name = typeof entry?.name === 'string' ? entry.name.slice(0, 64) : undefined;
  return name === undefined ? issue : { ...issue, path: `${issue.path} (entry '${name}')` };
}

function duplicateNames(doc: YamlDocument, catalog: Catalog): YamlIssue[] {
  const seen = new Map<string, number>();
  const out: YamlIssue[] = [];
  catalog.tools.forEach((t, i) => {
    const first = seen.get(t.name);
    if (first === undefined) seen.set(t.name, i);
    else out.push(doc.issueAt(['tools', i, 'name'], `'${t.name}' is tools[${first}] too`));
  });
  return out;
}

function invalid(file: string, issues: readonly string[], cause?: unknown): CaesarError {
  return CaesarError.of(
    'catalog_invalid',
    { file, issues: issues.join('; ') },
    cause === undefined ? {} : { cause },
  );
}
