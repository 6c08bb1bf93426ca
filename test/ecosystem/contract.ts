/**
 * Checks recorded responses against the API description: for the operation matching method and
 * path, the status must be documented, the content type must be one documented for it, and the
 * body must satisfy both the zod response schema and the JSON Schema the document publishes for
 * it (both come from the same zod schema; checking both also tests the generator).
 */
import { OPERATIONS, type Operation, type Reply } from '../../src/openapi/operations.ts';
import { openApiDocument } from '../../src/openapi/registry.ts';
import { JsonSchemaValidator, type Schema } from './json-schema.ts';
import type { RecordedResponse } from './response-recorder.ts';

export interface Violation {
  request: string;
  status: number;
  problem: string;
}

export interface ContractReport {
  checked: number;
  /** requests no documented operation covers (unknown paths, 405s): nothing to check them against */
  unmatched: number;
  violations: Violation[];
  /** operation id -> statuses seen */
  seen: Map<string, Set<number>>;
}

const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);

// Literal paths first, so /api/post/search is never taken for /api/post/{id}.
const MATCHERS = [...OPERATIONS]
  .sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0))
  .map((op) => ({
    op,
    re: new RegExp(
      `^${trim(op.path)
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
    ),
  }));

/**
 * The operation for a request: the most literal documented path that matches decides (as OpenAPI
 * matches concrete paths before templated ones), then the method. GET /api/post/search is no
 * getPost: it belongs to /api/post/search, which has no GET, so it is unmatched (a 405).
 */
export function findOperation(method: string, path: string): Operation | undefined {
  const m = (method === 'HEAD' ? 'get' : method.toLowerCase()) as Operation['method'];
  const template = MATCHERS.find((x) => x.re.test(trim(path)))?.op.path;
  return MATCHERS.find((x) => x.op.path === template && x.op.method === m)?.op;
}

const expectedTypes = (reply: Reply): string[] => reply.contentTypes ?? (reply.schema ? ['application/json'] : []);

export function checkRecordings(records: RecordedResponse[]): ContractReport {
  const doc = openApiDocument() as unknown as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
    >;
    components: { schemas: Record<string, Schema> };
  };
  const jsonSchema = new JsonSchemaValidator(doc.components.schemas);
  const report: ContractReport = { checked: 0, unmatched: 0, violations: [], seen: new Map() };

  for (const r of records) {
    const op = findOperation(r.method, r.path);
    if (!op) {
      report.unmatched++;
      continue;
    }
    report.checked++;
    const statuses = report.seen.get(op.operationId) ?? new Set<number>();
    statuses.add(r.status);
    report.seen.set(op.operationId, statuses);
    const fail = (problem: string) =>
      report.violations.push({ request: `${r.method} ${r.path} (${op.operationId})`, status: r.status, problem });

    const reply = op.responses[r.status];
    if (!reply) {
      fail(`status ${r.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`);
      continue;
    }
    const types = expectedTypes(reply);
    if (r.kind === 'none') {
      if (types.length > 0 && r.method !== 'HEAD') fail(`no body, but ${types.join(' or ')} is documented`);
      continue;
    }
    if (types.length === 0) {
      fail(`a ${r.contentType} body, but none is documented`);
      continue;
    }
    if (!types.includes(r.contentType)) {
      fail(`content type ${r.contentType}, documented: ${types.join(', ')}`);
      continue;
    }
    if (r.kind !== 'json' || !reply.schema) continue;

    const parsed = reply.schema.safeParse(r.body);
    if (!parsed.success) {
      for (const issue of parsed.error.issues.slice(0, 5))
        fail(`zod: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const published = doc.paths[op.path]?.[op.method]?.responses[String(r.status)]?.content?.[r.contentType]?.schema;
    if (!published) fail('the document has no schema for this response');
    else for (const problem of jsonSchema.validate(published, r.body).slice(0, 5)) fail(`document: ${problem}`);
  }
  return report;
}

export const formatViolations = (vs: Violation[]) =>
  vs.map((v) => `${v.request} -> ${v.status}: ${v.problem}`).join('\n');
